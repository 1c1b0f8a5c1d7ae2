/* The board protocol (docs/protocol.md): constants, CRC-16/CCITT-FALSE, COBS, frames.
 * Pure functions, no I/O: the same code runs on the microcontroller and under gcc. */
#ifndef COMPANION_PROTOCOL_H
#define COMPANION_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#define PROTOCOL_VERSION 1
#define PROTOCOL_BAUD 115200UL

#define MSG_INFO 0x01
#define MSG_SNAPSHOT 0x02
#define MSG_EVENT 0x03
#define MSG_HEARTBEAT 0x04
#define MSG_ACK 0x05
#define MSG_ERROR 0x06
#define MSG_HELLO 0x81
#define MSG_GET_SNAPSHOT 0x82
#define MSG_SET_LEDS 0x83
#define MSG_HOST_HEARTBEAT 0x84
#define MSG_FROM_HOST 0x80

#define ERR_CRC_MISMATCH 0x01
#define ERR_MALFORMED_FRAME 0x02
#define ERR_UNKNOWN_TYPE 0x03
#define ERR_BAD_LENGTH 0x04
#define ERR_UNSUPPORTED_VERSION 0x05
#define ERR_POSITION_OUT_OF_RANGE 0x06
#define ERR_BAD_VALUE 0x07
#define ERR_OVERFLOW 0x08

#define CAP_HEIGHTS 0x01
#define CAP_LEDS 0x02

#define COLOUR_OFF 0
#define COLOUR_LAST 7 /* red, green, blue, amber, yellow, violet, white */
#define PATTERN_STEADY 0
#define PATTERN_LAST 2 /* blink, pulse */
#define LED_CLEAR_OTHERS 0x01

#define READING_CODE_MASK 0x3F
#define READING_HEIGHT_SHIFT 6
#define CODE_UNREADABLE 0x3F
#define NO_HEIGHT 3

#define NO_SEQ 0xFFFF
#define FRAME_DELIMITER 0x00
#define HEADER_SIZE 3
#define CRC_SIZE 2
#define MAX_PAYLOAD 512
#define MAX_FRAME (HEADER_SIZE + MAX_PAYLOAD + CRC_SIZE)
#define COBS_BOUND(n) ((n) + (n) / 254 + 1)
#define MAX_STUFFED COBS_BOUND(MAX_FRAME)

#define CRC16_INITIAL 0xFFFF

uint16_t crc16(const uint8_t *data, size_t length, uint16_t crc);

/* Stuff `length` bytes of `in` into `out` (room for COBS_BOUND(length)); no delimiter.
 * Returns the stuffed length. */
size_t cobs_encode(const uint8_t *in, size_t length, uint8_t *out);

/* Unstuff in place; returns the decoded length, or -1 for a malformed frame. */
int cobs_decode(uint8_t *data, size_t length);

/* Build the wire bytes of one frame (stuffed, with its delimiter) into `out`, which must
 * hold COBS_BOUND(HEADER_SIZE + length + CRC_SIZE) + 1 bytes; `scratch` holds
 * HEADER_SIZE + length + CRC_SIZE. Returns the number of bytes. */
size_t frame_build(uint8_t type, uint16_t seq, const uint8_t *payload, size_t length,
                   uint8_t *scratch, uint8_t *out);

struct frame {
    uint8_t type;
    uint16_t seq;
    const uint8_t *payload;
    size_t length;
};

/* Decode one stuffed frame (without its delimiter) in place. Returns 0, or the
 * protocol's error code (then `frame->seq` is NO_SEQ unless the CRC matched). */
int frame_parse(uint8_t *data, size_t length, struct frame *frame);

#endif
