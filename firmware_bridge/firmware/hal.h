/* The hardware-abstraction layer the device code runs on. hal_arduino.cpp implements it
 * on an Arduino Mega 2560; hal_posix.c is the gcc stub (a pseudo-terminal for the
 * serial port, standard input for the sensors, standard output for the LEDs). */
#ifndef COMPANION_HAL_H
#define COMPANION_HAL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Milliseconds since start (wraps after 49 days; the device code compares differences). */
uint32_t hal_millis(void);

/* Bytes received on the serial link, at most `max`; never waits. */
int hal_serial_read(uint8_t *buffer, int max);

/* How many bytes hal_serial_write takes now without waiting. */
int hal_serial_room(void);

/* Queue bytes for sending; waits only while the transmit buffer is full. */
void hal_serial_write(const uint8_t *data, int length);

/* One position's reading byte: stack height in bits 7-6 (3: none), code in bits 5-0
 * (0: empty, 63: unreadable). */
uint8_t hal_read_sensor(uint8_t position);

/* Set one LED (colour and pattern as in the protocol); the HAL animates blink/pulse. */
void hal_set_led(uint8_t position, uint8_t colour, uint8_t pattern);

#ifdef __cplusplus
}
#endif

#endif
