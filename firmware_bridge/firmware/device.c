/* The board's side of the protocol: see device.h and docs/protocol.md. */
#include "device.h"

#include "hal.h"

const struct board_layout LAYOUT_SHANGRILA = {1, 1, 127, CAP_HEIGHTS | CAP_LEDS};
const struct board_layout LAYOUT_SHENDAO = {2, 1, 100, CAP_LEDS};
const struct board_layout LAYOUT_SHENSHI = {3, 1, 49, CAP_LEDS};

#define INFO_FIXED_SIZE 7
#define MAX_FIRMWARE_NAME 32

static void send(struct device *d, uint8_t type, const uint8_t *payload, uint16_t length)
{
    size_t n = frame_build(type, d->seq, payload, length, d->scratch, d->tx);
    d->seq++;
    hal_serial_write(d->tx, (int)n);
}

static int wire_size(uint16_t payload)
{
    int raw = HEADER_SIZE + payload + CRC_SIZE;
    return COBS_BOUND(raw) + 1;
}

static void send_info(struct device *d)
{
    const struct board_layout *l = d->layout;
    uint16_t n = INFO_FIXED_SIZE;
    const char *c;
    d->payload[0] = PROTOCOL_VERSION;
    d->payload[1] = l->game;
    d->payload[2] = l->layout;
    d->payload[3] = l->positions;
    d->payload[4] = l->capabilities;
    d->payload[5] = (uint8_t)(DEVICE_HEARTBEAT_MS & 0xFF);
    d->payload[6] = (uint8_t)(DEVICE_HEARTBEAT_MS >> 8);
    for (c = d->firmware; *c && n < INFO_FIXED_SIZE + MAX_FIRMWARE_NAME; c++) {
        d->payload[n++] = (uint8_t)*c;
    }
    send(d, MSG_INFO, d->payload, n);
}

static void send_snapshot(struct device *d)
{
    uint8_t i, n = d->layout->positions;
    d->payload[0] = n;
    for (i = 0; i < n; i++) {
        d->payload[1 + i] = d->reported[i];
    }
    send(d, MSG_SNAPSHOT, d->payload, (uint16_t)(n + 1));
}

static void send_error(struct device *d, uint16_t acked, uint8_t code)
{
    uint8_t p[3];
    p[0] = (uint8_t)(acked & 0xFF);
    p[1] = (uint8_t)(acked >> 8);
    p[2] = code;
    send(d, MSG_ERROR, p, 3);
}

static void answer(struct device *d, uint8_t type, uint16_t acked, uint8_t code,
                   uint8_t then)
{
    struct answer *a;
    if (d->answers_queued == DEVICE_MAX_ANSWERS) {
        return; /* the host sends faster than any board answers: it will resend */
    }
    a = &d->answers[d->answers_queued++];
    a->type = type;
    a->acked = acked;
    a->code = code;
    a->then = then;
}

static void flush_answers(struct device *d)
{
    uint8_t i;
    uint8_t p[2];
    for (i = 0; i < d->answers_queued; i++) {
        struct answer *a = &d->answers[i];
        if (a->type == MSG_ACK) {
            p[0] = (uint8_t)(a->acked & 0xFF);
            p[1] = (uint8_t)(a->acked >> 8);
            send(d, MSG_ACK, p, 2);
        } else {
            send_error(d, a->acked, a->code);
        }
        if (a->then == MSG_INFO) {
            send_info(d);
        } else if (a->then == MSG_SNAPSHOT) {
            send_snapshot(d);
        }
    }
    d->answers_queued = 0;
}

static void all_leds_off(struct device *d)
{
    uint8_t i;
    for (i = 0; i < d->layout->positions; i++) {
        if (d->led[i] != COLOUR_OFF) {
            d->led[i] = COLOUR_OFF;
            hal_set_led(i, COLOUR_OFF, PATTERN_STEADY);
        }
    }
}

/* The checks in the protocol's order (docs/protocol.md): the length, the flags, every
 * colour and pattern, no position named twice, then every position on the board. */
static uint8_t set_leds_error(const struct device *d, const struct frame *f,
                              uint8_t *seen)
{
    size_t i, count;
    if (f->length < 2 || f->length != 2 + 3 * (size_t)f->payload[1]) {
        return ERR_BAD_LENGTH;
    }
    if (f->payload[0] & (uint8_t)~LED_CLEAR_OTHERS) {
        return ERR_BAD_VALUE;
    }
    count = f->payload[1];
    for (i = 0; i < count; i++) {
        const uint8_t *led = f->payload + 2 + 3 * i;
        if (led[1] > COLOUR_LAST || led[2] > PATTERN_LAST) {
            return ERR_BAD_VALUE;
        }
    }
    for (i = 0; i < count; i++) {
        const uint8_t *led = f->payload + 2 + 3 * i;
        if (seen[led[0] / 8] & (1u << (led[0] % 8))) {
            return ERR_BAD_VALUE;
        }
        seen[led[0] / 8] |= (uint8_t)(1u << (led[0] % 8));
    }
    for (i = 0; i < count; i++) {
        if (f->payload[2 + 3 * i] >= d->layout->positions) {
            return ERR_POSITION_OUT_OF_RANGE;
        }
    }
    return 0;
}

static void set_leds(struct device *d, const struct frame *f)
{
    size_t i, count;
    uint8_t seen[256 / 8] = {0}; /* one bit per position a byte can name */
    uint8_t error = set_leds_error(d, f, seen);
    if (error) {
        answer(d, MSG_ERROR, f->seq, error, 0);
        return;
    }
    count = f->payload[1];
    for (i = 0; i < d->layout->positions; i++) {
        uint8_t want = d->led[i];
        if (seen[i / 8] & (1u << (i % 8))) {
            size_t k;
            for (k = 0; k < count; k++) {
                const uint8_t *led = f->payload + 2 + 3 * k;
                if (led[0] == i) {
                    want = (uint8_t)(led[1] | (led[2] << 4));
                }
            }
        } else if (f->payload[0] & LED_CLEAR_OTHERS) {
            want = COLOUR_OFF;
        }
        if (want != d->led[i]) {
            d->led[i] = want;
            hal_set_led((uint8_t)i, want & 0x0F, want >> 4);
        }
    }
    answer(d, MSG_ACK, f->seq, 0, 0);
}

static void on_frame(struct device *d, uint8_t *data, size_t length, uint32_t now)
{
    struct frame f;
    int error = frame_parse(data, length, &f);
    if (error) {
        if (d->rejected < 0xFFFF) {
            d->rejected++;
        }
        answer(d, MSG_ERROR, f.seq, (uint8_t)error, 0);
        return;
    }
    d->host_seen = now;
    switch (f.type) {
    case MSG_HELLO:
        if (f.length != 1) {
            answer(d, MSG_ERROR, f.seq, ERR_BAD_LENGTH, 0);
        } else if (f.payload[0] != PROTOCOL_VERSION) {
            answer(d, MSG_ERROR, f.seq, ERR_UNSUPPORTED_VERSION, MSG_INFO);
        } else {
            answer(d, MSG_ACK, f.seq, 0, MSG_INFO);
        }
        break;
    case MSG_GET_SNAPSHOT:
        if (f.length != 0) {
            answer(d, MSG_ERROR, f.seq, ERR_BAD_LENGTH, 0);
        } else {
            answer(d, MSG_ACK, f.seq, 0, MSG_SNAPSHOT);
        }
        break;
    case MSG_SET_LEDS:
        set_leds(d, &f);
        break;
    case MSG_HOST_HEARTBEAT:
        if (f.length != 0) {
            answer(d, MSG_ERROR, f.seq, ERR_BAD_LENGTH, 0);
        }
        break;
    default:
        answer(d, MSG_ERROR, f.seq, ERR_UNKNOWN_TYPE, 0);
    }
}

static void receive(struct device *d, uint32_t now)
{
    uint8_t chunk[32];
    int n, i;
    while ((n = hal_serial_read(chunk, (int)sizeof chunk)) > 0) {
        for (i = 0; i < n; i++) {
            uint8_t b = chunk[i];
            if (b == FRAME_DELIMITER) {
                if (d->rx_overlong) {
                    if (d->rejected < 0xFFFF) {
                        d->rejected++;
                    }
                    answer(d, MSG_ERROR, NO_SEQ, ERR_MALFORMED_FRAME, 0);
                } else if (d->rx_length) {
                    on_frame(d, d->rx, d->rx_length, now);
                }
                d->rx_length = 0;
                d->rx_overlong = 0;
            } else if (d->rx_length < sizeof d->rx) {
                d->rx[d->rx_length++] = b;
            } else {
                d->rx_overlong = 1;
            }
        }
    }
}

static void scan(struct device *d)
{
    uint8_t i, changes = 0;
    for (i = 0; i < d->layout->positions; i++) {
        uint8_t value = hal_read_sensor(i);
        if (value == d->candidate[i]) {
            if (d->count[i] < DEVICE_DEBOUNCE_SCANS) {
                d->count[i]++;
            }
        } else {
            d->candidate[i] = value;
            d->count[i] = 1;
        }
        if (d->count[i] >= DEVICE_DEBOUNCE_SCANS && value != d->reported[i]) {
            d->reported[i] = value;
            d->payload[1 + 2 * changes] = i;
            d->payload[2 + 2 * changes] = value;
            changes++;
        }
    }
    if (!changes) {
        return;
    }
    d->payload[0] = changes;
    if (d->snapshot_owed || hal_serial_room() < wire_size((uint16_t)(1 + 2 * changes))) {
        /* The host is not keeping up: this event is dropped, a snapshot will follow. */
        if (!d->snapshot_owed && d->overflows < 0xFFFF) {
            d->overflows++;
        }
        d->snapshot_owed = 1;
        return;
    }
    send(d, MSG_EVENT, d->payload, (uint16_t)(1 + 2 * changes));
}

int device_init(struct device *d, const struct board_layout *layout,
                const char *firmware, uint32_t now)
{
    uint8_t i;
    if (layout->positions > DEVICE_MAX_POSITIONS) {
        return -1;
    }
    d->layout = layout;
    d->firmware = firmware;
    d->seq = 0;
    d->rx_length = 0;
    d->rx_overlong = 0;
    d->answers_queued = 0;
    d->snapshot_owed = 0;
    d->rejected = d->overflows = 0;
    d->started = d->last_scan = d->last_heartbeat = d->host_seen = now;
    for (i = 0; i < layout->positions; i++) {
        d->reported[i] = d->candidate[i] = hal_read_sensor(i);
        d->count[i] = DEVICE_DEBOUNCE_SCANS;
        d->led[i] = COLOUR_OFF;
        hal_set_led(i, COLOUR_OFF, PATTERN_STEADY);
    }
    return 0;
}

void device_poll(struct device *d, uint32_t now)
{
    receive(d, now);
    flush_answers(d);
    if (d->snapshot_owed && hal_serial_room() >= wire_size(3) +
            wire_size((uint16_t)(1 + d->layout->positions))) {
        send_error(d, NO_SEQ, ERR_OVERFLOW);
        send_snapshot(d);
        d->snapshot_owed = 0;
    }
    if ((uint32_t)(now - d->last_scan) >= DEVICE_SCAN_MS) {
        d->last_scan += DEVICE_SCAN_MS;
        if ((uint32_t)(now - d->last_scan) > 50 * DEVICE_SCAN_MS) {
            d->last_scan = now; /* far behind (a stall): do not scan in a burst */
        }
        scan(d);
    }
    if ((uint32_t)(now - d->last_heartbeat) >= DEVICE_HEARTBEAT_MS) {
        uint8_t p[8];
        uint32_t uptime = now - d->started;
        d->last_heartbeat = now;
        p[0] = (uint8_t)uptime;
        p[1] = (uint8_t)(uptime >> 8);
        p[2] = (uint8_t)(uptime >> 16);
        p[3] = (uint8_t)(uptime >> 24);
        p[4] = (uint8_t)d->rejected;
        p[5] = (uint8_t)(d->rejected >> 8);
        p[6] = (uint8_t)d->overflows;
        p[7] = (uint8_t)(d->overflows >> 8);
        send(d, MSG_HEARTBEAT, p, 8);
    }
    if ((uint32_t)(now - d->host_seen) > DEVICE_HOST_SILENCE_MS) {
        all_leds_off(d);
    }
}
