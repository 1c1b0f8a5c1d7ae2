/* The board's side of the protocol (the same logic as firmware_bridge/device.py). */
#ifndef COMPANION_DEVICE_H
#define COMPANION_DEVICE_H

#include <stdint.h>

#include "protocol.h"

#ifndef DEVICE_MAX_POSITIONS
#define DEVICE_MAX_POSITIONS 128
#endif
#define DEVICE_SCAN_MS 10        /* 100 scans a second */
#define DEVICE_DEBOUNCE_SCANS 3
#define DEVICE_HEARTBEAT_MS 250
#define DEVICE_HOST_SILENCE_MS 3000
#define DEVICE_MAX_ANSWERS 8     /* ACK / ERROR frames waiting to be sent */
/* The largest device payload: an event naming every position. */
#define DEVICE_MAX_PAYLOAD (1 + 2 * DEVICE_MAX_POSITIONS)

struct board_layout {
    uint8_t game;      /* 1 Shangri-La, 2 Shendao, 3 ShenShi */
    uint8_t layout;
    uint8_t positions;
    uint8_t capabilities;
};

extern const struct board_layout LAYOUT_SHANGRILA; /* 91 spaces, 23 bridges, 13 stones */
extern const struct board_layout LAYOUT_SHENDAO;   /* 64 squares, 36 gates */
extern const struct board_layout LAYOUT_SHENSHI;   /* 49 squares */

struct answer {
    uint8_t type;  /* MSG_ACK or MSG_ERROR */
    uint8_t code;
    uint16_t acked;
    uint8_t then;  /* MSG_INFO, MSG_SNAPSHOT or 0: the reply that follows */
};

struct device {
    const struct board_layout *layout;
    const char *firmware;
    uint8_t reported[DEVICE_MAX_POSITIONS];
    uint8_t candidate[DEVICE_MAX_POSITIONS];
    uint8_t count[DEVICE_MAX_POSITIONS];
    uint8_t led[DEVICE_MAX_POSITIONS]; /* colour in the low nibble, pattern above */
    uint16_t seq;
    uint8_t rx[MAX_STUFFED];
    uint16_t rx_length;
    uint8_t rx_overlong;
    struct answer answers[DEVICE_MAX_ANSWERS];
    uint8_t answers_queued;
    uint8_t snapshot_owed;  /* an event did not fit: send ERROR OVERFLOW and a snapshot */
    uint32_t started, last_scan, last_heartbeat, host_seen;
    uint16_t rejected, overflows;
    uint8_t payload[DEVICE_MAX_PAYLOAD > 64 ? DEVICE_MAX_PAYLOAD : 64];
    uint8_t scratch[HEADER_SIZE + (DEVICE_MAX_PAYLOAD > 64 ? DEVICE_MAX_PAYLOAD : 64)
                    + CRC_SIZE];
    uint8_t tx[COBS_BOUND(HEADER_SIZE + (DEVICE_MAX_PAYLOAD > 64 ? DEVICE_MAX_PAYLOAD : 64)
                          + CRC_SIZE) + 1];
};

/* Start: every sensor is read once and taken as reported (no events for it). Returns 0,
 * or -1 when the layout has more positions than DEVICE_MAX_POSITIONS. */
int device_init(struct device *d, const struct board_layout *layout,
                const char *firmware, uint32_t now);

/* Run once per main-loop pass: read the host's bytes and answer them, scan when due,
 * send a heartbeat when due, turn the LEDs off when the host fell silent. */
void device_poll(struct device *d, uint32_t now);

#endif
