/*
 * ceiling: the physical limit of "HTTP GET from a loopback server into a file" on this machine.
 *
 * A minimal blocking HTTP/1.1 client: one connection, one GET, then read() into a 1 MiB buffer and
 * write() it to the output file until the body is complete. No TLS, no redirects, no chunked
 * encoding, no progress: nothing a real download manager could skip. bench/run compiles it with
 * `cc -O2` and reports it beside swget, curl, wget and aria2c.
 *
 * usage: ceiling HOST PORT PATH OUTFILE
 * Exit status: 0 when the whole body (Content-Length bytes, or up to EOF without one) was written,
 * 1 otherwise (with one line on stderr).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#define BUFFER_SIZE (1 << 20)

static void fail(const char *format, ...) {
    va_list args;
    va_start(args, format);
    fputs("ceiling: ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    exit(1);
}

static int connect_to(const char *host, const char *port) {
    struct addrinfo hints = {0}, *list, *ai;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int rc = getaddrinfo(host, port, &hints, &list);
    if (rc != 0) fail("%s:%s: %s", host, port, gai_strerror(rc));
    int fd = -1;
    for (ai = list; ai != NULL; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
        if (fd < 0) continue;
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) break;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(list);
    if (fd < 0) fail("cannot connect to %s:%s: %s", host, port, strerror(errno));
    return fd;
}

static void write_all(int fd, const char *data, size_t length) {
    while (length > 0) {
        ssize_t n = write(fd, data, length);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail("write: %s", strerror(errno));
        }
        data += n;
        length -= (size_t)n;
    }
}

/* Returns the length of the response head (up to and including the blank line), or 0 if incomplete. */
static size_t head_length(const char *buffer, size_t length) {
    const char *end = memmem(buffer, length, "\r\n\r\n", 4);
    return end == NULL ? 0 : (size_t)(end - buffer) + 4;
}

/* Content-Length from the head, or -1 when absent. Rejects chunked bodies, which ceiling does not decode. */
static long long parse_head(const char *head, size_t length) {
    int status = 0;
    if (sscanf(head, "HTTP/1.%*d %d", &status) != 1) fail("not an HTTP/1.x response");
    if (status != 200) fail("server answered %d", status);
    long long content_length = -1;
    const char *line = memchr(head, '\n', length);
    while (line != NULL && (size_t)(line + 1 - head) < length) {
        line++;
        if (strncasecmp(line, "Content-Length:", 15) == 0) content_length = strtoll(line + 15, NULL, 10);
        if (strncasecmp(line, "Transfer-Encoding:", 18) == 0) fail("chunked responses are not supported");
        line = memchr(line, '\n', length - (size_t)(line - head));
    }
    return content_length;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: ceiling HOST PORT PATH OUTFILE\n");
        return 2;
    }
    const char *host = argv[1], *port = argv[2], *path = argv[3], *outfile = argv[4];

    int out = open(outfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0) fail("%s: %s", outfile, strerror(errno));
    int sock = connect_to(host, port);

    char request[4096];
    int request_length = snprintf(request, sizeof request,
                                  "GET %s HTTP/1.1\r\nHost: %s:%s\r\nUser-Agent: ceiling\r\n"
                                  "Accept: */*\r\nConnection: close\r\n\r\n",
                                  path, host, port);
    if (request_length <= 0 || (size_t)request_length >= sizeof request) fail("path too long");
    write_all(sock, request, (size_t)request_length);

    char *buffer = malloc(BUFFER_SIZE);
    if (buffer == NULL) fail("out of memory");

    /* Read until the response head is complete; whatever follows it is the start of the body. */
    size_t filled = 0, head = 0;
    while (head == 0) {
        if (filled == BUFFER_SIZE) fail("response head larger than 1 MiB");
        ssize_t n = read(sock, buffer + filled, BUFFER_SIZE - filled);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) fail("connection closed before the response head ended");
        filled += (size_t)n;
        head = head_length(buffer, filled);
    }
    long long expected = parse_head(buffer, head);
    long long received = (long long)(filled - head);
    write_all(out, buffer + head, filled - head);

    /* The loop this program exists for: 1 MiB read(), write(), until the body is complete. */
    while (expected < 0 || received < expected) {
        ssize_t n = read(sock, buffer, BUFFER_SIZE);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail("read: %s", strerror(errno));
        }
        if (n == 0) break;
        write_all(out, buffer, (size_t)n);
        received += n;
    }
    if (expected >= 0 && received != expected) fail("body ended after %lld of %lld bytes", received, expected);
    if (close(out) != 0) fail("close %s: %s", outfile, strerror(errno));
    close(sock);
    free(buffer);
    return 0;
}
