function __swget_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __swget_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __swget_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __swget_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __swget_parse_tokens -S
    set -l unparsed_tokens (__swget_tokens -pc)
    switch $unparsed_tokens[1]
    case 'swget'
        __swget_parse_subcommand -r 1 'i/input-file=+' 'B/base=' 'j/parallel=' 'max-connections-per-host=' 'O/output-document=' 'P/directory-prefix=' 'no-clobber' 'no-content-disposition' 'trust-server-names' 'content-on-error' 'c/continue' 'start-pos=' 'delete-after' 'x/force-directories' 'no-directories' 'no-host-directories' 'protocol-directories' 'cut-dirs=' 'default-page=' 'restrict-file-names=' 'E/adjust-extension' 'N/timestamping' 'no-if-modified-since' 'no-use-server-timestamps' 'remote-time' 'no-cache' 'content-disposition' 'max-time=' 'z/time-cond=' 'etag-save=' 'etag-compare=' 'q/quiet' 'no-verbose' 'progress=' 'show-progress' 'S/server-response' 'spider' 'U/user-agent=' 'H/header=+' 'max-redirect=' 'compressed' 'no-decompress' 'gunzip' 'ca-certificate=+' 'ca-directory=+' 'k/no-check-certificate' 'crl-file=+' 'pinnedpubkey=' 'certificate=' 'cert=' 'certificate-type=' 'private-key=' 'private-key-type=' 'pass=' 'secure-protocol=' 'tlsv1_2' 'tlsv1_3' 'tls-max=' 'ciphers=' 'no-sessionid' 'https-only' 'hsts-file=' 'no-hsts' 'u/user=' 'password=' 'http-user=' 'http-password=' 'ask-password' 'netrc-file=' 'no-netrc' 'auth-no-challenge' 'no-cookies' 'load-cookies=+' 'save-cookies=' 'keep-session-cookies' 'proxy=' 'noproxy=' 'no-proxy' 'proxy-user=' 'proxy-password=' '4/inet4-only' '6/inet6-only' 'bind-address=' 'dns-timeout=' 't/tries=' 'waitretry=' 'retry-connrefused' 'T/timeout=' 'connect-timeout=' 'read-timeout=' 'split=' 'min-split-size=' 'limit-rate=' 'max-filesize=' 'ftp-user=' 'ftp-password=' 'no-passive-ftp' 'ftp-pasv' 'ftp-port=' 'disable-epsv' 'ftp-method=' 'ftp-ssl' 'ssl-reqd' 'ftp-ssl-control' 'ftps-clear-data-connection' 'glob' 'no-glob' 'o/output-file=' 'a/append-output=' 'd/debug' 'v/verbose' 's/save-headers' 'write-out=' 'w/wait=' 'random-wait' 'config=' 'no-config' 'e/execute=+' 'method=' 'request=' 'post-data=+' 'post-file=+' 'body-data=+' 'body-file=+' 'data=+' 'data-binary=+' 'data-raw=+' 'data-urlencode=+' 'json=+' 'form=+' 'form-string=+' 'upload-file=+' 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'help'
            __swget_parse_subcommand -r 1 'version'
        end
    end
end

function __swget_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __swget_parse_subcommand -S -a positional_count
    argparse -s r -- $argv
    set -l option_specs $argv[2..]
    set -l is_repeating_positional $_flag_r
    set -el _flag_r
    set -a commands $unparsed_tokens[1]
    set positional_index 0
    while true
        set -e unparsed_tokens[1]
        argparse -sn "$commands" $option_specs -- $unparsed_tokens 2> /dev/null
        set unparsed_tokens $argv
        set positional_index (math $positional_index + 1)
        for non_repeating_flag_or_option in $non_repeating_flags_or_options
            if set -ql "_flag_$(string replace -a - _ -- $non_repeating_flag_or_option)"
                set non_repeating_flags_or_options_absent 1
                break
            end
        end
        test (count $unparsed_tokens) -eq 0 -o \( -z "$is_repeating_positional" -a "$positional_index" -gt "$positional_count" \) && break
    end
end

function __swget_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __swget_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__swget_tokens -p)
    if test -z "$(__swget_tokens -t)"
        set -l index (count (__swget_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'swget' -f
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget"' -s 'i' -l 'input-file' -d 'Read URLs from FILE (\'-\' for standard input, or an http(s)/ftp URL to fetch the list from), one per line; blank lines and # comments are skipped (repeatable).' -rF
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" B base' -s 'B' -l 'base' -d 'Resolve the lines of -i lists that have no scheme (a/b.iso, /c.iso, ../d) against URL.' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" j parallel' -s 'j' -l 'parallel' -d 'Download up to N files at once (default 4; 1 is one after another, as wget).' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" max-connections-per-host' -l 'max-connections-per-host' -d 'Open at most N connections to one host at once (default: 6, or -j N when larger).' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" O output-document' -s 'O' -l 'output-document' -d 'Write the document to FILE (\'-\' for standard output), replacing it.' -rF
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" P directory-prefix' -s 'P' -l 'directory-prefix' -d 'Save files into DIR (created if missing).' -rfa '(__swget_complete_directories)'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" nc no-clobber' -o 'nc' -l 'no-clobber' -d 'Skip a download whose file already exists instead of choosing a new name.'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" no-content-disposition' -l 'no-content-disposition' -d 'Ignore the Content-Disposition file name.'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" trust-server-names' -l 'trust-server-names' -d 'Name the file after the last URL of a redirect chain.'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" content-on-error' -l 'content-on-error' -d 'Save the body of error responses (4xx, 5xx) too.'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" c continue' -s 'c' -l 'continue' -d 'Continue a partial file another tool left (NAME.part or NAME); swget\'s own .part files continue without it.'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" start-pos' -l 'start-pos' -d 'Download from byte OFFSET on (bytes, or with k, M, G), writing it from the start of a new file; wins over -c, never continued.' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" delete-after' -l 'delete-after' -d 'Delete each file once it is downloaded (to warm a proxy cache, or with --write-out).'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" force-directories x' -s 'x' -l 'force-directories' -d 'Recreate the URL\'s directories, host first, under the prefix (host/dir/file).'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" nd no-directories' -o 'nd' -l 'no-directories' -d 'Never create directories (wins over -x).'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" nH no-host-directories' -o 'nH' -l 'no-host-directories' -d 'With -x, leave out the host directory.'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" protocol-directories' -l 'protocol-directories' -d 'With -x, put the scheme first (http/host/dir/file).'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" cut-dirs' -l 'cut-dirs' -d 'With -x, leave out the first N directories of the URL\'s path.' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" default-page' -l 'default-page' -d 'The name for a URL ending in \'/\' when the server names nothing (default index.html).' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" restrict-file-names' -l 'restrict-file-names' -d 'Escape characters of names taken from URLs and Content-Disposition as %XX (wget\'s modes, comma-separated): unix (/ and control characters, the default), windows (also \\ | : ? " * < >), nocontrol (keep control characters), ascii (bytes above 127), lowercase, uppercase.' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" E adjust-extension html-extension' -s 'E' -l 'adjust-extension' -l 'html-extension' -d 'Add .html to HTML files (and .css to stylesheets) whose names lack it.'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" N timestamping' -s 'N' -l 'timestamping' -d 'Download only when the server\'s file is newer than the local one or of another size (If-Modified-Since), replacing it.'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" no-if-modified-since' -l 'no-if-modified-since' -d 'With -N, compare the answer\'s Last-Modified and length instead of sending If-Modified-Since.'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" no-use-server-timestamps' -l 'no-use-server-timestamps' -d 'Do not give saved files the server\'s Last-Modified time (given by default).'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" remote-time' -l 'remote-time' -d 'Give saved files the server\'s Last-Modified time (the default; curl\'s name).'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" no-cache' -l 'no-cache' -d 'Ask caches on the way for a fresh copy (Cache-Control: no-cache, Pragma: no-cache).'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" content-disposition' -l 'content-disposition' -d 'Name files after Content-Disposition (the default; accepted for wget scripts).'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" deadline max-time' -l 'max-time' -l 'deadline' -d 'Give up on a download that takes longer than SECONDS in all.' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" time-cond z' -s 'z' -l 'time-cond' -d 'Download only when the server\'s file is newer than DATE, or than FILE\'s modification time (If-Modified-Since); -DATE asks for a file not modified since (If-Unmodified-Since). curl\'s -z.' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" etag-save' -l 'etag-save' -d 'After a download, write the response\'s ETag to FILE (an empty file when there is none), for --etag-compare.' -rF
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" etag-compare' -l 'etag-compare' -d 'Download only when the server\'s ETag differs from the one in FILE (If-None-Match); no condition when FILE is missing or empty.' -rF
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" q quiet' -s 'q' -l 'quiet' -d 'Print nothing but errors.'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" no-verbose nv' -o 'nv' -l 'no-verbose' -d 'One summary line per file and errors; no progress indicator.'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" progress' -l 'progress' -d 'Progress indicator: bar (the default on a terminal; bar:force elsewhere too), dot[:default|binary|mega|giga] (wget\'s log-friendly dots), json (one JSON object per event on stderr) or none.' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" show-progress' -l 'show-progress' -d 'Show the progress indicator even with -q or -nv.'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" S server-response' -s 'S' -l 'server-response' -d 'Print the response headers of every hop, and the TLS version, cipher and server certificate of each new https connection.'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" spider' -l 'spider' -d 'Only check that the URLs exist (HEAD requests); download nothing.'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" U user-agent' -s 'U' -l 'user-agent' -d 'Send AGENT as the User-Agent header.' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget"' -s 'H' -l 'header' -d 'Send an extra header \'Name: value\' (repeatable).' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" max-redirect max-redirs' -l 'max-redirect' -l 'max-redirs' -d 'Follow at most N redirects (default 20).' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" compressed' -l 'compressed' -d 'Ask for a compressed transfer (gzip, deflate, br, zstd) and save the decoded body.'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" no-decompress raw' -l 'no-decompress' -l 'raw' -d 'Keep a compressed body exactly as sent (no Content-Encoding decoding).'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" decode gunzip' -l 'gunzip' -l 'decode' -d 'Store a .gz file decompressed, without its .gz suffix (data.csv.gz -> data.csv).'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget"' -l 'ca-certificate' -l 'cacert' -d 'Trust the CA certificates in FILE (PEM) too.' -rF
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget"' -l 'ca-directory' -l 'capath' -d 'Trust the CA certificates in DIR too (OpenSSL\'s hashed directory, or *.pem/*.crt files).' -rfa '(__swget_complete_directories)'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" insecure k no-check-certificate' -l 'no-check-certificate' -l 'insecure' -s 'k' -d 'Do not verify the server\'s certificate (a --pinnedpubkey still applies).'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget"' -l 'crl-file' -l 'crlfile' -d 'Check revocation against the CRLs in FILE (PEM or DER); every certificate of the chain then needs a current CRL from its issuer. A revoked certificate fails with exit 5.' -rF
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" pinnedpubkey' -l 'pinnedpubkey' -d 'Require the server\'s public key: a PEM or DER public key file, or sha256//BASE64[;sha256//...]. A mismatch fails with exit 5, also with --no-check-certificate.' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" certificate' -l 'certificate' -d 'Present the client certificate in FILE (its chain may follow; the key too, in PEM).' -rF
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" cert' -l 'cert' -d 'curl\'s --certificate, with an optional key passphrase after a colon (\\: for a colon in FILE).' -rF
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" cert-type certificate-type' -l 'certificate-type' -l 'cert-type' -d 'The client certificate\'s encoding: PEM (default) or DER.' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" key private-key' -l 'private-key' -l 'key' -d 'The client certificate\'s private key, when not in the certificate file.' -rF
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" key-type private-key-type' -l 'private-key-type' -l 'key-type' -d 'The private key\'s encoding: PEM (default) or DER.' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" pass' -l 'pass' -d 'The passphrase of an encrypted private key (asked on the terminal when missing).' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" secure-protocol' -l 'secure-protocol' -d 'auto (TLS 1.2 or later, the default), TLSv1_2, TLSv1_3, or PFS (forward-secret ciphers only).' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" tlsv1.2 tlsv1_2' -l 'tlsv1_2' -l 'tlsv1.2' -d 'Use TLS 1.2 or later (the default).'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" tlsv1.3 tlsv1_3' -l 'tlsv1_3' -l 'tlsv1.3' -d 'Use TLS 1.3 only.'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" tls-max' -l 'tls-max' -d 'The highest TLS version to use: 1.2, 1.3 or default.' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" ciphers' -l 'ciphers' -d 'The TLS 1.2 cipher suites to offer, an OpenSSL cipher list (TLS 1.3 suites are fixed).' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" no-sessionid' -l 'no-sessionid' -d 'Do not resume TLS sessions: every new connection makes a full handshake.'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" https-only' -l 'https-only' -d 'Refuse http:// URLs and redirects to http:// (exit 1).'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" hsts hsts-file' -l 'hsts-file' -l 'hsts' -d 'Keep the known HSTS hosts in FILE (default $XDG_DATA_HOME/swget/hsts; wget\'s format).' -rF
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" no-hsts' -l 'no-hsts' -d 'Neither use nor learn HSTS policies.'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" u user' -s 'u' -l 'user' -d 'Log in as USER (with :PASSWORD, curl\'s form) to each URL\'s own server.' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" password' -l 'password' -d 'The password for --user.' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" http-user' -l 'http-user' -d 'Like --user, for HTTP only.' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" http-password' -l 'http-password' -d 'Like --password, for HTTP only.' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" ask-password' -l 'ask-password' -d 'Ask for the password on the terminal (not echoed).'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" netrc-file' -l 'netrc-file' -d 'Read credentials from FILE instead of ~/.netrc.' -rF
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" no-netrc' -l 'no-netrc' -d 'Do not read ~/.netrc.'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" auth-no-challenge' -l 'auth-no-challenge' -d 'Send Basic credentials with the first request instead of waiting for the server to ask.'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" no-cookies' -l 'no-cookies' -d 'Neither send nor keep cookies.'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget"' -l 'load-cookies' -l 'cookie' -d 'Load cookies from FILE (Netscape format); curl\'s --cookie also takes \'name=value; n2=v2\'.' -rF
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" cookie-jar save-cookies' -l 'save-cookies' -l 'cookie-jar' -d 'Save the cookies to FILE at the end (Netscape format, mode 0600).' -rF
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" keep-session-cookies' -l 'keep-session-cookies' -d 'Save session cookies too (they have no expiry).'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" proxy' -l 'proxy' -d 'Use this proxy for every URL (http://, https://, socks5://, socks5h://, socks4a://; no scheme means http://).' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" noproxy' -l 'noproxy' -d 'Connect directly to these hosts (comma list: names and their subdomains, *, addresses, CIDR ranges, :port).' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" no-proxy' -l 'no-proxy' -d 'Use no proxy, whatever the environment says.'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" proxy-user' -l 'proxy-user' -d 'Log in to the proxy as USER (with :PASSWORD, curl\'s form).' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" proxy-password' -l 'proxy-password' -d 'The password for --proxy-user.' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" 4 inet4-only ipv4' -s '4' -l 'inet4-only' -l 'ipv4' -d 'Connect to IPv4 addresses only.'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" 6 inet6-only ipv6' -s '6' -l 'inet6-only' -l 'ipv6' -d 'Connect to IPv6 addresses only.'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" bind-address interface' -l 'bind-address' -l 'interface' -d 'Connect from this local IP address.' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" dns-timeout' -l 'dns-timeout' -d 'Give up looking up a host name after SECONDS (a network error, retried like one).' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" t tries' -s 't' -l 'tries' -d 'Attempts per URL on transient failures (default 20, 0 = unlimited).' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" retry-wait waitretry' -l 'waitretry' -l 'retry-wait' -d 'Longest wait between attempts in seconds (default 10).' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" retry-connrefused' -l 'retry-connrefused' -d 'Accepted for wget scripts: refused connections are always retried.'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" T timeout' -s 'T' -l 'timeout' -d 'Connect and read timeout in seconds.' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" connect-timeout' -l 'connect-timeout' -d 'Connect timeout in seconds (default 30).' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" read-timeout' -l 'read-timeout' -d 'Seconds without a byte before giving up (default 60).' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" max-connection-per-server split' -l 'split' -l 'max-connection-per-server' -d 'Fetch each file over up to N connections in segments, when the server allows ranges (default 1).' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" min-split-size' -l 'min-split-size' -d 'Never make segments smaller than SIZE (default 1M).' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" limit-rate' -l 'limit-rate' -d 'Receive at most RATE bytes per second over all transfers together (500k, 2M).' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" max-filesize' -l 'max-filesize' -d 'Refuse files larger than SIZE after decoding (bytes, or with k, M, G: 500k, 2G); exit 1.' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" ftp-user' -l 'ftp-user' -d 'Log in to FTP servers as USER when the URL names no user (default: .netrc, else anonymous).' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" ftp-password' -l 'ftp-password' -d 'The FTP password (for --ftp-user, or the anonymous login\'s instead of -wget@).' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" no-passive-ftp' -l 'no-passive-ftp' -d 'Active FTP: the server connects back to swget (EPRT, then PORT).'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" ftp-pasv' -l 'ftp-pasv' -d 'Passive FTP (EPSV, then PASV): the default; cancels --no-passive-ftp.'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" ftp-port' -l 'ftp-port' -d 'Active FTP, as curl\'s option; swget listens on the control connection\'s own address whatever ADDRESS says.' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" disable-epsv' -l 'disable-epsv' -d 'Do not try EPSV/EPRT (RFC 2428): PASV/PORT only.'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" ftp-method' -l 'ftp-method' -d 'How paths reach the server: nocwd (whole paths, the default) or multicwd (CWD to each directory).' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" ftp-ssl ssl' -l 'ftp-ssl' -l 'ssl' -d 'Ask for TLS on ftp:// URLs (AUTH TLS); go on in clear text if the server refuses. ftps:// is always TLS.'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" ftp-ssl-reqd ssl-reqd' -l 'ssl-reqd' -l 'ftp-ssl-reqd' -d 'Require TLS on ftp:// URLs: fail (exit 5) if the server refuses AUTH TLS.'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" ftp-ssl-control' -l 'ftp-ssl-control' -d 'Ask for TLS on ftp:// URLs for the login only; data connections in clear text.'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" ftps-clear-data-connection' -l 'ftps-clear-data-connection' -d 'With FTPS, leave data connections unencrypted (no PROT P).'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" glob' -l 'glob' -d 'Expand wildcards (*, ?, [...]) in the last segment of ftp:// URLs to the matching files (default: on).'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" no-glob' -l 'no-glob' -d 'Expand wildcards (*, ?, [...]) in the last segment of ftp:// URLs to the matching files (default: on).'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" o output-file' -s 'o' -l 'output-file' -d 'Write messages to FILE instead of standard error (wget\'s log file; no progress bar in it).' -rF
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" a append-output' -s 'a' -l 'append-output' -d 'Like -o, but append to FILE.' -rF
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" d debug' -s 'd' -l 'debug' -d 'Also show connections opened and reused, each request and response head, and TLS details; credentials are masked.'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" v verbose' -s 'v' -l 'verbose' -d 'Normal messages and progress (the default; for wget scripts).'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" s save-headers' -s 's' -l 'save-headers' -d 'Put the response head at the start of each saved file, followed by an empty line (wget).'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" write-out' -l 'write-out' -d 'After each URL print FORMAT on standard output, curl\'s variables filled in: %{http_code}, %{url_effective}, %{filename_effective}, %{size_download}, %{speed_download}, %{time_total}, %{time_connect}, %{time_starttransfer}, %{num_redirects}, %{exitcode}, %{json}, %header{NAME}... \\n and \\t are escapes; @FILE reads the format from FILE (@- from standard input).' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" w wait' -s 'w' -l 'wait' -d 'Wait SECONDS between downloads: after one ends before the next starts (-j 1), or between starts with -j N.' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" random-wait' -l 'random-wait' -d 'Wait between 0.5 and 1.5 times --wait, chosen anew each time (wget).'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" config' -l 'config' -d 'Read settings from FILE instead of $XDG_CONFIG_HOME/swget/config (~/.config/swget/config) or ~/.swgetrc: one \'name = value\' a line, names as the long options (tries = 5, no_check_certificate = on).' -rF
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" no-config' -l 'no-config' -d 'Read no configuration file.'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget"' -s 'e' -l 'execute' -d 'Run one configuration line after the file, as wget does (-e use_proxy=off, -e robots=off); repeatable.' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" method' -l 'method' -d 'Use METHOD (upper-cased, as wget does): DELETE, PUT, PATCH...' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" request' -l 'request' -d 'Use METHOD exactly as given (curl\'s -X).' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget"' -l 'post-data' -d 'POST STRING as application/x-www-form-urlencoded (wget).' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget"' -l 'post-file' -d 'POST the contents of FILE as application/x-www-form-urlencoded (wget).' -rF
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget"' -l 'body-data' -d 'Send STRING as the body of the --method request (wget).' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget"' -l 'body-file' -d 'Send the contents of FILE as the body of the --method request (wget).' -rF
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget"' -l 'data' -l 'data-ascii' -d 'POST DATA as a form (curl\'s -d): repeats join with &; @FILE reads a file without its newlines, @- standard input.' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget"' -l 'data-binary' -d 'POST DATA as --data does, but @FILE is sent exactly as it is (a lone @FILE streams from disk).' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget"' -l 'data-raw' -d 'POST DATA as --data does, with no special meaning for @.' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget"' -l 'data-urlencode' -d 'POST DATA URL-encoded (curl\'s forms: content, =content, name=content, @file, name@file).' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget"' -l 'json' -d 'POST DATA as JSON (Content-Type and Accept application/json); repeats are joined as they are.' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget"' -l 'form' -d 'Add a multipart/form-data field (curl\'s -F): name=value, name=@FILE[;type=TYPE][;filename=NAME], name=<FILE.' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget"' -l 'form-string' -d 'Add a multipart/form-data field whose value is taken literally (no @, < or ;).' -rfka ''
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget"' -l 'upload-file' -d 'PUT FILE (- for standard input); a URL ending in / gets the file\'s name (curl\'s -T).' -rF
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" version' -l 'version' -d 'Show the version.'
complete -c 'swget' -n '__swget_should_offer_completions_for_flags_or_options "swget" h help' -s 'h' -l 'help' -d 'Show help information.'
