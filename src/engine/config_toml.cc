/*
 * The TOML reader behind czk_engine_config_parse: toml++ (header-only, no
 * exceptions for parse errors) turned into a walk of C callbacks, so that
 * the key table and every rule about values stay in C (config.c). Only this
 * file is C++.
 */
#define TOML_HEADER_ONLY 1
#define TOML_EXCEPTIONS 0
#include <toml++/toml.h>

#include "engine/toml_shim.h"

#include <new>
#include <string>
#include <string_view>
#include <vector>

extern "C" const char *czk_tv_type_name(czk_tv_type t) {
    switch (t) {
    case CZK_TV_STRING:
        return "string";
    case CZK_TV_INT:
        return "integer";
    case CZK_TV_FLOAT:
        return "float";
    case CZK_TV_BOOL:
        return "boolean";
    case CZK_TV_ARRAY:
        return "array";
    case CZK_TV_TABLE:
        return "table";
    default:
        return "date/time";
    }
}

namespace {

struct walker {
    czk_toml_fn fn;
    void *ctx;
    czk_err *err;
};

/* Fills v from a node; strings and array items are kept alive in the caller's storage. */
void convert(const toml::node &n, czk_tv &v, std::vector<std::string> &strs,
             std::vector<std::vector<czk_tv>> &arrays) {
    v = czk_tv{};
    v.line = n.source().begin.line;
    v.col = n.source().begin.column;
    if (auto s = n.as_string()) {
        v.type = CZK_TV_STRING;
        strs.emplace_back(s->get());
        v.s = nullptr; /* set after all strings are stored (vector may move them) */
        v.n = strs.size() - 1;
    } else if (auto i = n.as_integer()) {
        v.type = CZK_TV_INT;
        v.i = i->get();
    } else if (auto f = n.as_floating_point()) {
        v.type = CZK_TV_FLOAT;
        v.f = f->get();
    } else if (auto b = n.as_boolean()) {
        v.type = CZK_TV_BOOL;
        v.b = b->get();
    } else if (auto a = n.as_array()) {
        v.type = CZK_TV_ARRAY;
        std::vector<czk_tv> items(a->size());
        for (size_t k = 0; k < a->size(); k++)
            convert(*a->get(k), items[k], strs, arrays);
        arrays.push_back(std::move(items));
        v.n = arrays.size() - 1; /* index until fixed up */
    } else if (n.is_table()) {
        v.type = CZK_TV_TABLE;
    } else {
        v.type = CZK_TV_OTHER;
    }
}

/* Turns the indexes left by convert into pointers. */
void fixup(czk_tv &v, std::vector<std::string> &strs, std::vector<std::vector<czk_tv>> &arrays) {
    if (v.type == CZK_TV_STRING) {
        v.s = strs[v.n].c_str();
        v.n = 0;
    } else if (v.type == CZK_TV_ARRAY) {
        std::vector<czk_tv> &items = arrays[v.n];
        for (auto &it : items)
            fixup(it, strs, arrays);
        v.items = items.data();
        v.n = items.size();
    }
}

czk_status walk_table(walker &w, const toml::table &t, const std::string &prefix) {
    for (auto &&[k, node] : t) {
        std::string key =
            prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
        std::vector<std::string> strs;
        std::vector<std::vector<czk_tv>> arrays;
        czk_tv v;
        convert(node, v, strs, arrays);
        fixup(v, strs, arrays);
        v.kline = k.source().begin.line;
        v.kcol = k.source().begin.column;
        czk_status st = w.fn(w.ctx, key.c_str(), &v, w.err);
        if (st) return st;
        if (auto sub = node.as_table())
            if ((st = walk_table(w, *sub, key))) return st;
    }
    return CZK_OK;
}

} // namespace

extern "C" czk_status czk_toml_walk(const char *text, size_t len, const char *source,
                                    czk_toml_fn fn, void *ctx, czk_err *err) {
    try {
        toml::parse_result r = toml::parse(std::string_view(text ? text : "", text ? len : 0),
                                           std::string_view(source));
        if (!r) {
            const toml::parse_error &e = r.error();
            return czk_errf(err, CZK_ERR_FORMAT, "%s:%u:%u: %.*s", source,
                            (unsigned)e.source().begin.line, (unsigned)e.source().begin.column,
                            (int)e.description().size(), e.description().data());
        }
        walker w{fn, ctx, err};
        return walk_table(w, r.table(), "");
    } catch (const std::bad_alloc &) {
        return czk_errf(err, CZK_ERR_NOMEM, "%s: out of memory", source);
    } catch (...) {
        return czk_errf(err, CZK_ERR_INTERNAL, "%s: unexpected error in the TOML reader", source);
    }
}
