/* CRC-16/CCITT-FALSE, COBS and framing: see protocol.h and docs/protocol.md. */
#include "protocol.h"

#define CRC16_POLYNOMIAL 0x1021
#define COBS_MAX_RUN 0xFF

uint16_t crc16(const uint8_t *data, size_t length, uint16_t crc)
{
    size_t i;
    int bit;
    for (i = 0; i < length; i++) {
        crc ^= (uint16_t)((uint16_t)data[i] << 8);
        for (bit = 0; bit < 8; bit++) {
            crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ CRC16_POLYNOMIAL)
                                 : (uint16_t)(crc << 1);
        }
    }
    return crc;
}

size_t cobs_encode(const uint8_t *in, size_t length, uint8_t *out)
{
    size_t code_at = 0, o = 1, i;
    uint8_t code = 1;
    for (i = 0; i < length; i++) {
        if (in[i] == FRAME_DELIMITER) {
            out[code_at] = code;
            code_at = o++;
            code = 1;
            continue;
        }
        out[o++] = in[i];
        if (++code == COBS_MAX_RUN && i + 1 < length) { /* more data follows */
            out[code_at] = code;
            code_at = o++;
            code = 1;
        }
    }
    out[code_at] = code;
    return o;
}

int cobs_decode(uint8_t *data, size_t length)
{
    size_t i = 0, o = 0, end, j;
    uint8_t code;
    if (length == 0) {
        return -1;
    }
    while (i < length) {
        code = data[i];
        if (code == FRAME_DELIMITER) {
            return -1;
        }
        end = i + code;
        if (end > length) {
            return -1;
        }
        for (j = i + 1; j < end; j++) {
            if (data[j] == FRAME_DELIMITER) {
                return -1;
            }
            data[o++] = data[j];
        }
        i = end;
        if (code != COBS_MAX_RUN && i < length) {
            data[o++] = FRAME_DELIMITER;
        }
    }
    return (int)o;
}

size_t frame_build(uint8_t type, uint16_t seq, const uint8_t *payload, size_t length,
                   uint8_t *scratch, uint8_t *out)
{
    size_t i, n, stuffed;
    uint16_t crc;
    scratch[0] = type;
    scratch[1] = (uint8_t)(seq & 0xFF);
    scratch[2] = (uint8_t)(seq >> 8);
    for (i = 0; i < length; i++) {
        scratch[HEADER_SIZE + i] = payload[i];
    }
    n = HEADER_SIZE + length;
    crc = crc16(scratch, n, CRC16_INITIAL);
    scratch[n] = (uint8_t)(crc & 0xFF);
    scratch[n + 1] = (uint8_t)(crc >> 8);
    stuffed = cobs_encode(scratch, n + CRC_SIZE, out);
    out[stuffed] = FRAME_DELIMITER;
    return stuffed + 1;
}

int frame_parse(uint8_t *data, size_t length, struct frame *frame)
{
    int n;
    uint16_t crc;
    frame->seq = NO_SEQ;
    if (length > MAX_STUFFED) {
        return ERR_MALFORMED_FRAME;
    }
    n = cobs_decode(data, length);
    if (n < HEADER_SIZE + CRC_SIZE) {
        return ERR_MALFORMED_FRAME;
    }
    crc = (uint16_t)(data[n - 2] | (data[n - 1] << 8));
    if (crc16(data, (size_t)n - CRC_SIZE, CRC16_INITIAL) != crc) {
        return ERR_CRC_MISMATCH;
    }
    frame->type = data[0];
    frame->seq = (uint16_t)(data[1] | (data[2] << 8));
    frame->payload = data + HEADER_SIZE;
    frame->length = (size_t)n - HEADER_SIZE - CRC_SIZE;
    return 0;
}
