#include "support.h"

#include <string.h>

static int nibble(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

void czk_test_hex(uint8_t *out, size_t len, const char *hex) {
    if (strlen(hex) != 2 * len) fail_msg("hex literal of %zu chars, expected %zu", strlen(hex), 2 * len);
    for (size_t i = 0; i < len; i++) {
        int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) fail_msg("bad hex literal %s", hex);
        out[i] = (uint8_t)(hi << 4 | lo);
    }
}

void czk_test_fr_from_hex_be(czk_fr *out, const char *hex) {
    uint8_t be[32], le[32];
    czk_test_hex(be, 32, hex);
    for (int i = 0; i < 32; i++) le[i] = be[31 - i];
    czk_err err;
    czk_assert_ok(czk_fr_from_bytes(out, le, &err), &err);
}
