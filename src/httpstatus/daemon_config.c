/*
 * The server's table of the configuration file, [daemon] (cuzk-engine.md §3
 * for listen and status_listen; the rest czk's own): a czk_config_table that
 * czk daemon hands to czk_config_load beside the engine's tables, so the one
 * file is read in one pass and the engine keeps no key of the server's.
 */
#include "czk/httpstatus.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

void czk_daemon_config_default(czk_daemon_config *c) {
    memset(c, 0, sizeof *c);
    snprintf(c->listen, sizeof c->listen, "unix:///run/curio/cuzk.sock");
    c->shutdown_drain = true;
    c->shutdown_grace_ms = 0;
    c->shutdown_cancel_grace_ms = 10000;
    c->max_message_bytes = 257ull << 20;
}

#define F(field) offsetof(czk_daemon_config, field)
static const czk_config_key KEYS[] = {
    {"daemon.listen", CZK_CONFIG_STRING, F(listen), sizeof(((czk_daemon_config *)0)->listen)},
    {"daemon.status_listen", CZK_CONFIG_STRING, F(status_listen),
     sizeof(((czk_daemon_config *)0)->status_listen)},
    {"daemon.shutdown_drain", CZK_CONFIG_BOOL, F(shutdown_drain), 0},
    {"daemon.shutdown_grace", CZK_CONFIG_DURATION, F(shutdown_grace_ms), 0},
    {"daemon.shutdown_cancel_grace", CZK_CONFIG_DURATION, F(shutdown_cancel_grace_ms), 0},
    {"daemon.max_message_size", CZK_CONFIG_SIZE, F(max_message_bytes), 0},
};

czk_config_table czk_daemon_config_table(czk_daemon_config *c) {
    return (czk_config_table){"daemon", KEYS, sizeof KEYS / sizeof KEYS[0], c};
}
