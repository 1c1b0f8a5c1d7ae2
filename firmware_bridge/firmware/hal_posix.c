/* The gcc stub of the hardware: the serial port is a pseudo-terminal, the sensors are
 * lines of hex on standard input, the LEDs are lines on standard output.
 *
 *   board_sim GAME [LINK]     GAME: shangrila | shendao | shenshi
 *
 * Prints "board PATH" (PATH: LINK when given, kept pointing at the current pty), then
 * reads lines: the whole table as hex (two digits a position: the reading bytes),
 * "unplug" (close the pty mid-frame), "plug" (a fresh board on a new pty) or "quit".
 * Each LED change prints "led POSITION COLOUR PATTERN". Exits at the end of input. */
#ifndef ARDUINO /* the Arduino IDE compiles every file of the sketch folder */
#define _XOPEN_SOURCE 600
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "device.h"
#include "hal.h"

#define TX_BUFFER 1024
#define LINE_MAX_SIZE 1024
#define WRITE_WAIT_MS 100

static int master = -1, slave = -1;
static uint8_t sensors[DEVICE_MAX_POSITIONS];
static uint8_t tx[TX_BUFFER];
static int tx_length;
static struct timespec start;

uint32_t hal_millis(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint32_t)((now.tv_sec - start.tv_sec) * 1000 +
                      (now.tv_nsec - start.tv_nsec) / 1000000);
}

int hal_serial_read(uint8_t *buffer, int max)
{
    ssize_t n;
    if (master < 0) {
        return 0;
    }
    n = read(master, buffer, (size_t)max);
    return n > 0 ? (int)n : 0;
}

static void flush_tx(void)
{
    ssize_t n;
    if (master < 0 || tx_length == 0) {
        return;
    }
    n = write(master, tx, (size_t)tx_length);
    if (n > 0) {
        memmove(tx, tx + n, (size_t)(tx_length - n));
        tx_length -= (int)n;
    }
}

int hal_serial_room(void)
{
    flush_tx();
    return TX_BUFFER - tx_length;
}

void hal_serial_write(const uint8_t *data, int length)
{
    uint32_t waited_from = hal_millis();
    while (master >= 0 && TX_BUFFER - tx_length < length) {
        struct pollfd p = {master, POLLOUT, 0};
        flush_tx();
        if (hal_millis() - waited_from > WRITE_WAIT_MS) {
            return; /* nobody reads the line: like a UART, the bytes are lost */
        }
        poll(&p, 1, 5);
    }
    if (master < 0) {
        return;
    }
    memcpy(tx + tx_length, data, (size_t)length);
    tx_length += length;
    flush_tx();
}

uint8_t hal_read_sensor(uint8_t position)
{
    return sensors[position];
}

void hal_set_led(uint8_t position, uint8_t colour, uint8_t pattern)
{
    printf("led %u %u %u\n", position, colour, pattern);
    fflush(stdout);
}

static int plug(const char *link)
{
    struct termios raw;
    char *name;
    master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) || unlockpt(master) || !(name = ptsname(master))) {
        perror("board_sim: pty");
        return -1;
    }
    slave = open(name, O_RDWR | O_NOCTTY); /* held open: no EIO before a host comes */
    if (slave < 0 || tcgetattr(slave, &raw)) {
        perror("board_sim: pty slave");
        return -1;
    }
    cfmakeraw(&raw);
    tcsetattr(slave, TCSANOW, &raw);
    fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
    tx_length = 0;
    if (link) {
        char temporary[4096];
        snprintf(temporary, sizeof temporary, "%s.new", link);
        unlink(temporary);
        if (symlink(name, temporary) || rename(temporary, link)) {
            perror("board_sim: link");
            return -1;
        }
    }
    printf("board %s\n", link ? link : name);
    fflush(stdout);
    return 0;
}

static void unplug(const char *link)
{
    static const uint8_t half_frame[] = {0x02, 0x04, 0x07};
    if (master < 0) {
        return;
    }
    if (write(master, half_frame, sizeof half_frame) < 0) {
        /* a full pty: the cable goes anyway */
    }
    usleep(50000);
    if (link) {
        unlink(link);
    }
    close(master);
    close(slave);
    master = slave = -1;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

/* One control line; returns 0 to go on, 1 to quit. */
static int control(char *line, struct device *d, const struct board_layout *layout,
                   const char *link)
{
    size_t n = strlen(line), i;
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r')) {
        line[--n] = 0;
    }
    if (!strcmp(line, "quit")) {
        return 1;
    }
    if (!strcmp(line, "unplug")) {
        unplug(link);
        return 0;
    }
    if (!strcmp(line, "plug")) {
        if (master < 0 && plug(link) == 0) {
            device_init(d, layout, "companion-c 1", hal_millis());
        }
        return 0;
    }
    if (n != 2u * layout->positions) {
        fprintf(stderr, "board_sim: expected %u hex readings, got %zu characters\n",
                layout->positions, n);
        return 0;
    }
    for (i = 0; i < layout->positions; i++) {
        int hi = hex_digit(line[2 * i]), lo = hex_digit(line[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            fprintf(stderr, "board_sim: not hex at %zu\n", 2 * i);
            return 0;
        }
        sensors[i] = (uint8_t)(hi * 16 + lo);
    }
    return 0;
}

int main(int argc, char **argv)
{
    static struct device d;
    const struct board_layout *layout;
    const char *link = argc > 2 ? argv[2] : NULL;
    char line[LINE_MAX_SIZE];
    size_t line_length = 0;
    if (argc < 2) {
        fprintf(stderr, "usage: board_sim shangrila|shendao|shenshi [LINK]\n");
        return 2;
    }
    if (!strcmp(argv[1], "shangrila")) {
        layout = &LAYOUT_SHANGRILA;
    } else if (!strcmp(argv[1], "shendao")) {
        layout = &LAYOUT_SHENDAO;
    } else if (!strcmp(argv[1], "shenshi")) {
        layout = &LAYOUT_SHENSHI;
    } else {
        fprintf(stderr, "board_sim: unknown game %s\n", argv[1]);
        return 2;
    }
    clock_gettime(CLOCK_MONOTONIC, &start);
    fcntl(STDIN_FILENO, F_SETFL, fcntl(STDIN_FILENO, F_GETFL) | O_NONBLOCK);
    if (plug(link) || device_init(&d, layout, "companion-c 1", hal_millis())) {
        return 1;
    }
    for (;;) {
        struct pollfd p[2] = {{STDIN_FILENO, POLLIN, 0}, {master, POLLIN, 0}};
        char c;
        ssize_t n;
        poll(p, master >= 0 ? 2 : 1, 2);
        while ((n = read(STDIN_FILENO, &c, 1)) == 1) {
            if (c == '\n') {
                line[line_length] = 0;
                if (control(line, &d, layout, link)) {
                    unplug(link);
                    return 0;
                }
                line_length = 0;
            } else if (line_length < LINE_MAX_SIZE - 1) {
                line[line_length++] = c;
            }
        }
        if (n == 0) {
            unplug(link);
            return 0; /* end of input */
        }
        if (master >= 0) {
            device_poll(&d, hal_millis());
            flush_tx();
        }
    }
}

#endif /* ARDUINO */
