#!/bin/bash

__swget_cursor_index_in_current_word() {
    local remaining="${COMP_LINE}"

    local word
    for word in "${COMP_WORDS[@]::COMP_CWORD}"; do
        remaining="${remaining##*([[:space:]])"${word}"*([[:space:]])}"
    done

    local -ir index="$((COMP_POINT - ${#COMP_LINE} + ${#remaining}))"
    if [[ "${index}" -le 0 ]]; then
        printf 0
    else
        printf %s "${index}"
    fi
}

# positional arguments:
#
# - 1: the current (sub)command's count of positional arguments
#
# required variables:
#
# - repeating_flags: the repeating flags that the current (sub)command can accept
# - non_repeating_flags: the non-repeating flags that the current (sub)command can accept
# - repeating_options: the repeating options that the current (sub)command can accept
# - non_repeating_options: the non-repeating options that the current (sub)command can accept
# - positional_number: value ignored
# - unparsed_words: unparsed words from the current command line
#
# modified variables:
#
# - non_repeating_flags: remove flags for this (sub)command that are already on the command line
# - non_repeating_options: remove options for this (sub)command that are already on the command line
# - positional_number: set to the current positional number
# - unparsed_words: remove all flags, options, and option values for this (sub)command
__swget_offer_flags_options() {
    local -ir positional_count="${1}"
    positional_number=0

    local was_flag_option_terminator_seen=false
    local is_parsing_option_value=false

    local -ar unparsed_word_indices=("${!unparsed_words[@]}")
    local -i word_index
    for word_index in "${unparsed_word_indices[@]}"; do
        if "${is_parsing_option_value}"; then
            # This word is an option value:
            # Reset marker for next word iff not currently the last word
            [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]] && is_parsing_option_value=false
            unset "unparsed_words[${word_index}]"
            # Do not process this word as a flag or an option
            continue
        fi

        local word="${unparsed_words["${word_index}"]}"
        if ! "${was_flag_option_terminator_seen}"; then
            case "${word}" in
            --)
                unset "unparsed_words[${word_index}]"
                # by itself -- is a flag/option terminator, but if it is the last word, it is the start of a completion
                if [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]]; then
                    was_flag_option_terminator_seen=true
                fi
                continue
                ;;
            -*)
                # ${word} is a flag or an option
                # If ${word} is an option, mark that the next word to be parsed is an option value
                local option
                for option in "${repeating_options[@]}" "${non_repeating_options[@]}"; do
                    [[ "${word}" = "${option}" ]] && is_parsing_option_value=true && break
                done

                # Remove ${word} from ${non_repeating_flags} or ${non_repeating_options} so it isn't offered again
                local not_found=true
                local -i index
                for index in "${!non_repeating_flags[@]}"; do
                    if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                        unset "non_repeating_flags[${index}]"
                        non_repeating_flags=("${non_repeating_flags[@]}")
                        not_found=false
                        break
                    fi
                done
                if "${not_found}"; then
                    for index in "${!non_repeating_flags[@]}"; do
                        if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                            unset "non_repeating_flags[${index}]"
                            non_repeating_flags=("${non_repeating_flags[@]}")
                            break
                        fi
                    done
                fi
                unset "unparsed_words[${word_index}]"
                continue
                ;;
            esac
        fi

        # ${word} is neither a flag, nor an option, nor an option value
        if [[ "${positional_number}" -lt "${positional_count}" || "${positional_count}" -lt 0 ]]; then
            # ${word} is a positional
            ((positional_number++))
            unset "unparsed_words[${word_index}]"
        else
            if [[ -z "${word}" ]]; then
                # Could be completing a flag, option, or subcommand
                positional_number=-1
            else
                # ${word} is a subcommand or invalid, so stop processing this (sub)command
                positional_number=-2
            fi
            break
        fi
    done

    unparsed_words=("${unparsed_words[@]}")

    if\
        ! "${was_flag_option_terminator_seen}"\
        && ! "${is_parsing_option_value}"\
        && [[ ("${cur}" = -* && "${positional_number}" -ge 0) || "${positional_number}" -eq -1 ]]
    then
        COMPREPLY+=($(compgen -W "${repeating_flags[*]} ${non_repeating_flags[*]} ${repeating_options[*]} ${non_repeating_options[*]}" -- "${cur}"))
    fi
}

__swget_add_completions() {
    local completion
    while IFS='' read -r completion; do
        COMPREPLY+=("${completion}")
    done < <(IFS=$'\n' compgen "${@}" -- "${cur}")
}

__swget_custom_complete() {
    if [[ -n "${cur}" || -z ${COMP_WORDS[${COMP_CWORD}]} || "${COMP_LINE:${COMP_POINT}:1}" != ' ' ]]; then
        local -ar words=("${COMP_WORDS[@]}")
    else
        local -ar words=("${COMP_WORDS[@]::${COMP_CWORD}}" '' "${COMP_WORDS[@]:${COMP_CWORD}}")
    fi

    "${COMP_WORDS[0]}" "${@}" "${words[@]}"
}

_swget() {
    local state
    state="$(shopt -p;shopt -po)"
    trap "${state//$'\n'/;}" RETURN
    shopt -s extglob
    set +o history +o posix

    local -xr SAP_SHELL=bash
    local -x SAP_SHELL_VERSION
    SAP_SHELL_VERSION="$(IFS='.';printf %s "${BASH_VERSINFO[*]}")"
    local -r SAP_SHELL_VERSION

    local -r cur="${2}"
    local -r prev="${3}"

    local -i positional_number
    local -a unparsed_words=("${COMP_WORDS[@]:1:${COMP_CWORD}}")

    local -a repeating_flags=()
    local -a non_repeating_flags=(-nc --no-clobber --no-content-disposition --trust-server-names --content-on-error -c --continue --delete-after -x --force-directories -nd --no-directories -nH --no-host-directories --protocol-directories -E --adjust-extension --html-extension -N --timestamping --no-if-modified-since --no-use-server-timestamps --remote-time --no-cache --content-disposition -q --quiet -nv --no-verbose --show-progress -S --server-response --spider --compressed --no-decompress --raw --gunzip --decode --no-check-certificate --insecure -k --tlsv1_2 --tlsv1.2 --tlsv1_3 --tlsv1.3 --no-sessionid --https-only --no-hsts --ask-password --no-netrc --auth-no-challenge --no-cookies --keep-session-cookies --no-proxy -4 --inet4-only --ipv4 -6 --inet6-only --ipv6 --retry-connrefused --no-passive-ftp --ftp-pasv --disable-epsv --ftp-ssl --ssl --ssl-reqd --ftp-ssl-reqd --ftp-ssl-control --ftps-clear-data-connection --glob --no-glob -d --debug -v --verbose -s --save-headers --random-wait --no-config --version -h --help)
    local -a repeating_options=(-i --input-file -H --header --ca-certificate --cacert --ca-directory --capath --crl-file --crlfile --load-cookies --cookie -e --execute --post-data --post-file --body-data --body-file --data --data-ascii --data-binary --data-raw --data-urlencode --json --form --form-string --upload-file)
    local -a non_repeating_options=(-B --base -j --parallel --max-connections-per-host -O --output-document -P --directory-prefix --start-pos --cut-dirs --default-page --restrict-file-names --max-time --deadline -z --time-cond --etag-save --etag-compare --progress -U --user-agent --max-redirect --max-redirs --pinnedpubkey --certificate --cert --certificate-type --cert-type --private-key --key --private-key-type --key-type --pass --secure-protocol --tls-max --ciphers --hsts-file --hsts -u --user --password --http-user --http-password --netrc-file --save-cookies --cookie-jar --proxy --noproxy --proxy-user --proxy-password --bind-address --interface --dns-timeout -t --tries --waitretry --retry-wait -T --timeout --connect-timeout --read-timeout --split --max-connection-per-server --min-split-size --limit-rate --max-filesize --ftp-user --ftp-password --ftp-port --ftp-method -o --output-file -a --append-output --write-out -w --wait --config --method --request)
    __swget_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '-i'|'--input-file')
        __swget_add_completions -f
        return
        ;;
    '-B'|'--base')
        return
        ;;
    '-j'|'--parallel')
        return
        ;;
    '--max-connections-per-host')
        return
        ;;
    '-O'|'--output-document')
        __swget_add_completions -f
        return
        ;;
    '-P'|'--directory-prefix')
        __swget_add_completions -d
        return
        ;;
    '--start-pos')
        return
        ;;
    '--cut-dirs')
        return
        ;;
    '--default-page')
        return
        ;;
    '--restrict-file-names')
        return
        ;;
    '--max-time'|'--deadline')
        return
        ;;
    '-z'|'--time-cond')
        return
        ;;
    '--etag-save')
        __swget_add_completions -f
        return
        ;;
    '--etag-compare')
        __swget_add_completions -f
        return
        ;;
    '--progress')
        return
        ;;
    '-U'|'--user-agent')
        return
        ;;
    '-H'|'--header')
        return
        ;;
    '--max-redirect'|'--max-redirs')
        return
        ;;
    '--ca-certificate'|'--cacert')
        __swget_add_completions -f
        return
        ;;
    '--ca-directory'|'--capath')
        __swget_add_completions -d
        return
        ;;
    '--crl-file'|'--crlfile')
        __swget_add_completions -f
        return
        ;;
    '--pinnedpubkey')
        return
        ;;
    '--certificate')
        __swget_add_completions -f
        return
        ;;
    '--cert')
        __swget_add_completions -f
        return
        ;;
    '--certificate-type'|'--cert-type')
        return
        ;;
    '--private-key'|'--key')
        __swget_add_completions -f
        return
        ;;
    '--private-key-type'|'--key-type')
        return
        ;;
    '--pass')
        return
        ;;
    '--secure-protocol')
        return
        ;;
    '--tls-max')
        return
        ;;
    '--ciphers')
        return
        ;;
    '--hsts-file'|'--hsts')
        __swget_add_completions -f
        return
        ;;
    '-u'|'--user')
        return
        ;;
    '--password')
        return
        ;;
    '--http-user')
        return
        ;;
    '--http-password')
        return
        ;;
    '--netrc-file')
        __swget_add_completions -f
        return
        ;;
    '--load-cookies'|'--cookie')
        __swget_add_completions -f
        return
        ;;
    '--save-cookies'|'--cookie-jar')
        __swget_add_completions -f
        return
        ;;
    '--proxy')
        return
        ;;
    '--noproxy')
        return
        ;;
    '--proxy-user')
        return
        ;;
    '--proxy-password')
        return
        ;;
    '--bind-address'|'--interface')
        return
        ;;
    '--dns-timeout')
        return
        ;;
    '-t'|'--tries')
        return
        ;;
    '--waitretry'|'--retry-wait')
        return
        ;;
    '-T'|'--timeout')
        return
        ;;
    '--connect-timeout')
        return
        ;;
    '--read-timeout')
        return
        ;;
    '--split'|'--max-connection-per-server')
        return
        ;;
    '--min-split-size')
        return
        ;;
    '--limit-rate')
        return
        ;;
    '--max-filesize')
        return
        ;;
    '--ftp-user')
        return
        ;;
    '--ftp-password')
        return
        ;;
    '--ftp-port')
        return
        ;;
    '--ftp-method')
        return
        ;;
    '-o'|'--output-file')
        __swget_add_completions -f
        return
        ;;
    '-a'|'--append-output')
        __swget_add_completions -f
        return
        ;;
    '--write-out')
        return
        ;;
    '-w'|'--wait')
        return
        ;;
    '--config')
        __swget_add_completions -f
        return
        ;;
    '-e'|'--execute')
        return
        ;;
    '--method')
        return
        ;;
    '--request')
        return
        ;;
    '--post-data')
        return
        ;;
    '--post-file')
        __swget_add_completions -f
        return
        ;;
    '--body-data')
        return
        ;;
    '--body-file')
        __swget_add_completions -f
        return
        ;;
    '--data'|'--data-ascii')
        return
        ;;
    '--data-binary')
        return
        ;;
    '--data-raw')
        return
        ;;
    '--data-urlencode')
        return
        ;;
    '--json')
        return
        ;;
    '--form')
        return
        ;;
    '--form-string')
        return
        ;;
    '--upload-file')
        __swget_add_completions -f
        return
        ;;
    esac

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    help)
        # Offer subcommand argument completions
        "_swget_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        ;;
    esac
}

_swget_help() {
    repeating_flags=()
    non_repeating_flags=(--version)
    repeating_options=()
    non_repeating_options=()
    __swget_offer_flags_options -1
}

complete -o filenames -F _swget swget
