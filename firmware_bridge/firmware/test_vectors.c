/* Check the C protocol code against the shared vectors (firmware_bridge/vectors.txt),
 * the same lines the Python tests check.   test_vectors PATH/vectors.txt */
#ifndef ARDUINO /* the Arduino IDE compiles every file of the sketch folder */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"

#define LINE_SIZE 4096
#define BYTES_SIZE 1024

static int failures;

static int unhex(const char *text, uint8_t *out)
{
    int n = 0;
    unsigned value;
    if (!strcmp(text, "-")) {
        return 0;
    }
    while (text[0] && text[1]) {
        if (sscanf(text, "%2x", &value) != 1) {
            return -1;
        }
        out[n++] = (uint8_t)value;
        text += 2;
    }
    return n;
}

static void check(int ok, int line_number, const char *what)
{
    if (!ok) {
        printf("line %d: %s\n", line_number, what);
        failures++;
    }
}

int main(int argc, char **argv)
{
    static char line[LINE_SIZE];
    static uint8_t a[BYTES_SIZE], b[BYTES_SIZE], out[BYTES_SIZE], scratch[BYTES_SIZE];
    char kind[16], f1[LINE_SIZE], f2[LINE_SIZE], f3[LINE_SIZE], f4[LINE_SIZE];
    int number = 0, checked = 0;
    FILE *file;
    if (argc != 2 || !(file = fopen(argv[1], "r"))) {
        fprintf(stderr, "usage: test_vectors vectors.txt\n");
        return 2;
    }
    while (fgets(line, sizeof line, file)) {
        int fields;
        number++;
        if (line[0] == '#' || line[0] == '\n') {
            continue;
        }
        fields = sscanf(line, "%15s %4095s %4095s %4095s %4095s", kind, f1, f2, f3, f4);
        if (!strcmp(kind, "crc") && fields == 3) {
            int n = unhex(f1, a);
            check(crc16(a, (size_t)n, CRC16_INITIAL) == (uint16_t)strtoul(f2, NULL, 16),
                  number, "crc");
        } else if (!strcmp(kind, "cobs") && fields == 3) {
            int n = unhex(f1, a), m = unhex(f2, b);
            size_t stuffed = cobs_encode(a, (size_t)n, out);
            check(stuffed == (size_t)m && !memcmp(out, b, (size_t)m), number, "cobs encode");
            check(cobs_decode(b, (size_t)m) == n && !memcmp(b, a, (size_t)n), number,
                  "cobs decode");
        } else if (!strcmp(kind, "frame") && fields == 5) {
            uint8_t type = (uint8_t)strtoul(f1, NULL, 16);
            uint16_t seq = (uint16_t)strtoul(f2, NULL, 16);
            int n = unhex(f3, a), m = unhex(f4, b);
            size_t built = frame_build(type, seq, a, (size_t)n, scratch, out);
            struct frame f;
            check(built == (size_t)m && !memcmp(out, b, (size_t)m), number, "frame build");
            check(frame_parse(b, (size_t)m - 1, &f) == 0 && f.type == type && f.seq == seq &&
                      f.length == (size_t)n && !memcmp(f.payload, a, (size_t)n),
                  number, "frame parse");
            /* a flipped bit anywhere is caught */
            unhex(f4, b);
            b[m / 2] ^= 0x10;
            check(b[m / 2] == 0 || frame_parse(b, (size_t)m - 1, &f) != 0, number,
                  "corrupted frame accepted");
        } else {
            check(0, number, "unreadable vector");
        }
        checked++;
    }
    fclose(file);
    printf("%d vectors, %d failures\n", checked, failures);
    return failures ? 1 : 0;
}

#endif /* ARDUINO */
