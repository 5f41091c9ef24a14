/*
 * A probe of the layering (cmake/layers.cmake czk_layer_probe): compiled with
 * the include tree and the dependencies of one layer's target, it includes the
 * public API and CZK_PROBE_HEADER. tests/build/layers.cmake expects it to
 * compile where that header is the layer's own or exported to it, and to fail
 * where it is another layer's private header.
 */
#include "czk/engine.h"
#include "czk/groth16.h"
#include CZK_PROBE_HEADER

int czk_probe(void);
int czk_probe(void) {
    return 0;
}
