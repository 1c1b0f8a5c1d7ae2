// The hardware of the reference board (Arduino Mega 2560), behind hal.h.
//
// Sensors: every position holds a resistor socket; each piece carries a resistor of
// its own value (one per colour for tiles; bridges and stones one value), and a
// student on its master puts the two in parallel. Eight CD74HC4067 16-channel
// multiplexers (select lines on pins 22-25, outputs on A0-A7) bring the 127 dividers
// (10 kOhm to 5 V) to the ADC. BANDS maps each voltage band to a reading byte: this is
// the board's own calibration; the host's layouts.json maps the codes to colours.
//
// LEDs: a chain of 127 WS2812 pixels on pin 6, in position order.
#ifdef ARDUINO
#include <Adafruit_NeoPixel.h>
#include <Arduino.h>

#include "device.h"
#include "hal.h"

static const uint8_t SELECT_PINS[4] = {22, 23, 24, 25};
static const uint8_t MUX_OUTPUTS[8] = {A0, A1, A2, A3, A4, A5, A6, A7};
static const uint8_t LED_PIN = 6;
static const uint8_t SPACES = 91; // Shangri-La: spaces first, then bridges and stones
static const uint16_t SETTLE_US = 5;
static const uint16_t BLINK_MS = 400;
static const uint16_t PULSE_MS = 1600;

struct band {
    uint16_t below; // ADC counts (0-1023)
    uint8_t reading;
};

#define H1(code) (uint8_t)((1 << READING_HEIGHT_SHIFT) | (code))
#define H2(code) (uint8_t)((2 << READING_HEIGHT_SHIFT) | (code))

// Spaces: tiles of 1k, 2.2k, 4.7k and 10k (red, blue, yellow, violet); a master
// with its student reads half its single value.
static const struct band SPACE_BANDS[] = {
    {60, H2(1)}, {110, H1(1)}, {190, H2(2)}, {260, H1(2)}, {360, H2(3)},
    {450, H1(3)}, {570, H2(4)}, {680, H1(4)}, {1000, CODE_UNREADABLE}, {1024, 0},
};
// Bridges and stones: present (a 1k resistor) or not.
static const struct band PRESENCE_BANDS[] = {
    {300, (NO_HEIGHT << READING_HEIGHT_SHIFT) | 1},
    {1000, (NO_HEIGHT << READING_HEIGHT_SHIFT) | CODE_UNREADABLE},
    {1024, (NO_HEIGHT << READING_HEIGHT_SHIFT) | 0},
};

static const uint32_t COLOURS[COLOUR_LAST + 1] = {
    0x000000, 0xFF0000, 0x00FF00, 0x0000FF, 0xFFA000, 0xFFFF00, 0x9000FF, 0xFFFFFF,
};

static Adafruit_NeoPixel pixels(DEVICE_MAX_POSITIONS, LED_PIN, NEO_GRB + NEO_KHZ800);
static uint8_t led_colour[DEVICE_MAX_POSITIONS];
static uint8_t led_pattern[DEVICE_MAX_POSITIONS];

void hal_begin(void)
{
    Serial.begin(PROTOCOL_BAUD);
    for (uint8_t pin : SELECT_PINS) {
        pinMode(pin, OUTPUT);
    }
    pixels.begin();
    pixels.show();
}

uint32_t hal_millis(void)
{
    return millis();
}

int hal_serial_read(uint8_t *buffer, int max)
{
    int n = 0;
    while (n < max && Serial.available() > 0) {
        buffer[n++] = (uint8_t)Serial.read();
    }
    return n;
}

int hal_serial_room(void)
{
    return Serial.availableForWrite();
}

void hal_serial_write(const uint8_t *data, int length)
{
    Serial.write(data, (size_t)length);
}

static uint8_t classify(uint16_t counts, const struct band *bands, uint8_t n)
{
    for (uint8_t i = 0; i < n; i++) {
        if (counts < bands[i].below) {
            return bands[i].reading;
        }
    }
    return CODE_UNREADABLE;
}

uint8_t hal_read_sensor(uint8_t position)
{
    uint8_t channel = position % 16;
    for (uint8_t bit = 0; bit < 4; bit++) {
        digitalWrite(SELECT_PINS[bit], (channel >> bit) & 1 ? HIGH : LOW);
    }
    delayMicroseconds(SETTLE_US);
    uint16_t counts = (uint16_t)analogRead(MUX_OUTPUTS[position / 16]);
    if (position < SPACES) {
        return classify(counts, SPACE_BANDS, sizeof SPACE_BANDS / sizeof *SPACE_BANDS);
    }
    return classify(counts, PRESENCE_BANDS, sizeof PRESENCE_BANDS / sizeof *PRESENCE_BANDS);
}

void hal_set_led(uint8_t position, uint8_t colour, uint8_t pattern)
{
    led_colour[position] = colour;
    led_pattern[position] = pattern;
}

// Called every loop: draw blinking and pulsing LEDs (at most 50 frames a second).
void hal_leds_refresh(uint32_t now)
{
    static uint32_t last;
    if (now - last < 20) {
        return;
    }
    last = now;
    bool blink_on = (now % BLINK_MS) < BLINK_MS / 2;
    uint16_t phase = (uint16_t)(now % PULSE_MS);
    uint8_t pulse = (uint8_t)((phase < PULSE_MS / 2 ? phase : PULSE_MS - phase) * 255UL
                              / (PULSE_MS / 2));
    for (uint8_t i = 0; i < DEVICE_MAX_POSITIONS; i++) {
        uint32_t rgb = COLOURS[led_colour[i]];
        uint8_t level = 255;
        if (led_pattern[i] == 1) {
            level = blink_on ? 255 : 0;
        } else if (led_pattern[i] == 2) {
            level = pulse;
        }
        pixels.setPixelColor(i, (uint8_t)(((rgb >> 16) & 0xFF) * level / 255),
                             (uint8_t)(((rgb >> 8) & 0xFF) * level / 255),
                             (uint8_t)((rgb & 0xFF) * level / 255));
    }
    pixels.show();
}
#endif // ARDUINO
