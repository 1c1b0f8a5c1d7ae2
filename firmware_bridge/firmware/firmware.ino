// The sensor and LED board: an Arduino Mega 2560 running the device side of the
// protocol (device.c), on the hardware described in hal_arduino.cpp.
// Open this folder in the Arduino IDE (the sketch is named after it), install the
// Adafruit NeoPixel library, build and upload.
#include "device.h"

void hal_begin(void);
void hal_leds_refresh(uint32_t now);

static struct device board;

void setup()
{
    hal_begin();
    device_init(&board, &LAYOUT_SHANGRILA, "companion-mega 1", millis());
}

void loop()
{
    uint32_t now = millis();
    device_poll(&board, now);
    hal_leds_refresh(now);
}
