/* The firmware's device code (device.c, protocol.c) on a scripted hardware layer, for
 * the differential test against the Python device (test_firmware_differential.py).
 *
 *   device_harness GAME < records > answers      GAME: shangrila | shendao | shenshi
 *
 * Each input line is one record, after which the device runs one pass (device_poll):
 *   h HEX       these bytes arrive from the host
 *   s POS VAL   a sensor reads VAL (decimal) from now on
 *   t MS        MS milliseconds pass
 * Each record prints one line: the bytes the device sent (hex, "-" for none), then the
 * LEDs that changed since the previous record as POS:VALUE in hex (colour in the low
 * nibble, pattern above; "-" for none). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "hal.h"

#define LINE_SIZE 8192
#define OUT_SIZE 65536

static uint8_t sensors[DEVICE_MAX_POSITIONS];
static uint8_t leds[DEVICE_MAX_POSITIONS], shown[DEVICE_MAX_POSITIONS];
static uint8_t in[LINE_SIZE / 2];
static int in_length, in_at;
static uint8_t out[OUT_SIZE];
static int out_length;
static uint32_t now;

uint32_t hal_millis(void) { return now; }

int hal_serial_read(uint8_t *buffer, int max)
{
    int n = in_length - in_at < max ? in_length - in_at : max;
    memcpy(buffer, in + in_at, (size_t)n);
    in_at += n;
    return n;
}

int hal_serial_room(void) { return OUT_SIZE - out_length; }

void hal_serial_write(const uint8_t *data, int length)
{
    if (out_length + length <= OUT_SIZE) {
        memcpy(out + out_length, data, (size_t)length);
        out_length += length;
    }
}

uint8_t hal_read_sensor(uint8_t position) { return sensors[position]; }

void hal_set_led(uint8_t position, uint8_t colour, uint8_t pattern)
{
    leds[position] = (uint8_t)(colour | (pattern << 4));
}

static int unhex(const char *text, uint8_t *to)
{
    int n = 0;
    unsigned value;
    while (text[0] && text[1] && text[0] != '\n') {
        if (sscanf(text, "%2x", &value) != 1) {
            return -1;
        }
        to[n++] = (uint8_t)value;
        text += 2;
    }
    return n;
}

int main(int argc, char **argv)
{
    static char line[LINE_SIZE];
    static struct device d;
    const struct board_layout *layout;
    int positions, i;
    if (argc != 2) {
        fprintf(stderr, "usage: device_harness shangrila|shendao|shenshi\n");
        return 2;
    }
    layout = !strcmp(argv[1], "shendao") ? &LAYOUT_SHENDAO
           : !strcmp(argv[1], "shenshi") ? &LAYOUT_SHENSHI : &LAYOUT_SHANGRILA;
    positions = layout->positions;
    if (device_init(&d, layout, "companion-sim 1", now)) {
        return 2;
    }
    while (fgets(line, sizeof line, stdin)) {
        unsigned position, value, ms;
        in_length = in_at = 0;
        if (line[0] == 'h' && line[1] == ' ') {
            in_length = unhex(line + 2, in);
            if (in_length < 0) {
                fprintf(stderr, "bad hex: %s", line);
                return 2;
            }
        } else if (sscanf(line, "s %u %u", &position, &value) == 2 &&
                   position < (unsigned)positions) {
            sensors[position] = (uint8_t)value;
        } else if (sscanf(line, "t %u", &ms) == 1) {
            now += ms;
        } else {
            fprintf(stderr, "unknown record: %s", line);
            return 2;
        }
        out_length = 0;
        device_poll(&d, now);
        if (!out_length) {
            fputs("-", stdout);
        }
        for (i = 0; i < out_length; i++) {
            printf("%02x", out[i]);
        }
        fputs(" ", stdout);
        value = 0;
        for (i = 0; i < positions; i++) {
            if (leds[i] != shown[i]) {
                printf("%s%d:%02x", value ? "," : "", i, leds[i]);
                shown[i] = leds[i];
                value = 1;
            }
        }
        puts(value ? "" : "-");
    }
    return 0;
}
