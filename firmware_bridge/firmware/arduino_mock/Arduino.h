/* Declarations of the few Arduino core functions hal_arduino.cpp uses, so that
 * `make arduino-syntax` can check it with the host's g++ (it is never linked). */
#pragma once
#include <stddef.h>
#include <stdint.h>
#define HIGH 1
#define LOW 0
#define OUTPUT 1
#define A0 54
#define A1 55
#define A2 56
#define A3 57
#define A4 58
#define A5 59
#define A6 60
#define A7 61
uint32_t millis(void);
void pinMode(uint8_t pin, uint8_t mode);
void digitalWrite(uint8_t pin, uint8_t value);
int analogRead(uint8_t pin);
void delayMicroseconds(unsigned int us);
struct SerialPort {
    void begin(unsigned long baud);
    int available();
    int read();
    int availableForWrite();
    size_t write(const uint8_t *data, size_t length);
};
extern SerialPort Serial;
