/*
 * textgen: compressible but realistic test data for the gzip scenario of bench/run.
 *
 * Writes exactly BYTES bytes of a CSV web-server log to stdout: a header line, then one request per
 * line (timestamp, level, client address, method, path with numeric ids, status, bytes, duration,
 * user agent, request id). Numbers and ids come from a fixed-seed PRNG, so the output is the same on
 * every run and machine, and gzip -6 shrinks it about 5 times (like real logs and CSV exports, not
 * like a file of zeros). The last line is cut where BYTES ends. bench/run compiles it with
 * `cc -O2`; it writes about 600 MiB/s (no printf: fields are appended by hand).
 *
 * usage: textgen BYTES > FILE
 * Exit status: 0 when BYTES bytes were written, 1 otherwise (with one line on stderr).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUFFER_SIZE (1 << 20)
#define LINE_MAX_BYTES 512

static uint64_t state = 0x9e3779b97f4a7c15u;

/* splitmix64: fast, deterministic, good enough for test data. */
static uint64_t next(void) {
    uint64_t z = (state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static uint32_t below(uint32_t n) { return (uint32_t)(((next() >> 32) * n) >> 32); }

static char *put_str(char *p, const char *s) {
    size_t n = strlen(s);
    memcpy(p, s, n);
    return p + n;
}

static char *put_uint(char *p, uint64_t v) {
    char digits[20];
    int n = 0;
    do { digits[n++] = (char)('0' + v % 10); v /= 10; } while (v != 0);
    while (n > 0) *p++ = digits[--n];
    return p;
}

static char *put_padded(char *p, uint64_t v, int width) {
    for (int i = width - 1; i >= 0; i--) { p[i] = (char)('0' + v % 10); v /= 10; }
    return p + width;
}

/* Days since 1970-01-01 -> year, month, day (Howard Hinnant's civil_from_days). */
static void civil(int64_t days, int *year, int *month, int *day) {
    days += 719468;
    int64_t era = (days >= 0 ? days : days - 146096) / 146097;
    unsigned doe = (unsigned)(days - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *day = (int)(doy - (153 * mp + 2) / 5 + 1);
    *month = (int)(mp < 10 ? mp + 3 : mp - 9);
    *year = (int)(yoe + era * 400 + (*month <= 2));
}

static const char *const resources[] = {"users", "orders", "products", "carts", "sessions", "invoices",
                                        "search", "reviews", "images", "payments", "shipments", "coupons"};
static const char *const actions[] = {"", "", "", "/items", "/history", "/status", "/details", "/comments"};
static const char *const agents[] = {
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:125.0) Gecko/20100101 Firefox/125.0",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 Version/17.4 Safari/605.1.15",
    "curl/8.7.1",
    "python-requests/2.31.0",
    "Go-http-client/2.0",
    "okhttp/4.12.0",
};

/* Appends one log line for the request at time ms (milliseconds since the epoch). */
static char *put_line(char *p, uint64_t ms) {
    int year, month, day;
    uint64_t seconds = ms / 1000;
    civil((int64_t)(seconds / 86400), &year, &month, &day);
    uint64_t second_of_day = seconds % 86400;
    p = put_padded(p, (uint64_t)year, 4); *p++ = '-';
    p = put_padded(p, (uint64_t)month, 2); *p++ = '-';
    p = put_padded(p, (uint64_t)day, 2); *p++ = 'T';
    p = put_padded(p, second_of_day / 3600, 2); *p++ = ':';
    p = put_padded(p, second_of_day / 60 % 60, 2); *p++ = ':';
    p = put_padded(p, second_of_day % 60, 2); *p++ = '.';
    p = put_padded(p, ms % 1000, 3); p = put_str(p, "Z,");

    uint32_t r = below(100);
    p = put_str(p, r < 86 ? "INFO," : r < 95 ? "WARN," : r < 99 ? "ERROR," : "DEBUG,");

    p = put_str(p, "10.");
    p = put_uint(p, below(4));
    *p++ = '.';
    p = put_uint(p, below(256));
    *p++ = '.';
    p = put_uint(p, 1 + below(254));
    *p++ = ',';

    r = below(100);
    p = put_str(p, r < 72 ? "GET," : r < 90 ? "POST," : r < 96 ? "PUT," : "DELETE,");
    p = put_str(p, "/api/v2/");
    p = put_str(p, resources[below(sizeof resources / sizeof *resources)]);
    *p++ = '/';
    p = put_uint(p, below(200000));
    p = put_str(p, actions[below(sizeof actions / sizeof *actions)]);
    if (below(4) == 0) { p = put_str(p, "?page="); p = put_uint(p, 1 + below(20)); }
    *p++ = ',';

    r = below(1000);
    p = put_str(p, r < 800 ? "200," : r < 850 ? "201," : r < 880 ? "204," : r < 920 ? "304," : r < 950 ? "400,"
                 : r < 985 ? "404," : r < 995 ? "500," : "503,");
    p = put_uint(p, below(4) == 0 ? below(1000) : below(250000));
    *p++ = ',';
    uint32_t micros = below(4) == 0 ? below(2000000) : below(80000);
    p = put_uint(p, micros / 1000);
    *p++ = '.';
    p = put_padded(p, micros % 1000, 3);
    p = put_str(p, ",\"");
    p = put_str(p, agents[below(sizeof agents / sizeof *agents)]);
    p = put_str(p, "\",req-");
    static const char hex[] = "0123456789abcdef";
    uint64_t id = next();
    for (int i = 0; i < 8; i++) { *p++ = hex[id & 15]; id >>= 4; }
    *p++ = '\n';
    return p;
}

static void write_all(const char *data, size_t length) {
    while (length > 0) {
        ssize_t n = write(STDOUT_FILENO, data, length);
        if (n < 0) {
            if (errno == EINTR) continue;
            fprintf(stderr, "textgen: write: %s\n", strerror(errno));
            exit(1);
        }
        data += n;
        length -= (size_t)n;
    }
}

int main(int argc, char **argv) {
    char *end;
    if (argc != 2) { fputs("usage: textgen BYTES > FILE\n", stderr); return 1; }
    errno = 0;
    unsigned long long remaining = strtoull(argv[1], &end, 10);
    if (errno != 0 || *end != '\0' || end == argv[1]) { fprintf(stderr, "textgen: not a byte count: %s\n", argv[1]); return 1; }

    char *buffer = malloc(BUFFER_SIZE + LINE_MAX_BYTES);
    if (buffer == NULL) { fputs("textgen: out of memory\n", stderr); return 1; }
    char *p = put_str(buffer, "timestamp,level,client,method,path,status,bytes,duration_ms,user_agent,request_id\n");
    uint64_t ms = 1714521600000u;   /* 2024-05-01T00:00:00Z */
    while (remaining > 0) {
        while (p - buffer < BUFFER_SIZE) {
            p = put_line(p, ms);
            ms += below(40);
        }
        size_t length = (size_t)(p - buffer);
        if (length > remaining) length = (size_t)remaining;
        write_all(buffer, length);
        remaining -= length;
        size_t rest = (size_t)(p - buffer) - length;   /* a line that crossed the buffer's end */
        memmove(buffer, buffer + length, rest);
        p = buffer + rest;
    }
    return 0;
}
