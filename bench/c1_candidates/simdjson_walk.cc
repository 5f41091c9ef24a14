// Candidate measurement (not part of the build): walk a C1 JSON with
// simdjson (On-Demand and DOM), summing every integer. See run.sh.
#include <simdjson.h>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <sys/resource.h>
#include <string>

static double cpu_ms(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}
static long kib(const char *key) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, strlen(key))) v = strtol(line + strlen(key) + 1, nullptr, 10);
    fclose(f);
    return v;
}

using namespace simdjson;
static uint64_t walk(ondemand::value v) {
    uint64_t s = 0;
    switch (v.type()) {
    case ondemand::json_type::object:
        for (auto f : v.get_object())
            s += walk(f.value());
        break;
    case ondemand::json_type::array:
        for (auto e : v.get_array())
            s += walk(e.value());
        break;
    case ondemand::json_type::number:
        s += uint64_t(v.get_uint64());
        break;
    case ondemand::json_type::string:
        s += std::string_view(v.get_string()).size();
        break;
    default:
        break;
    }
    return s;
}
static uint64_t walk_dom(dom::element e) {
    uint64_t s = 0;
    switch (e.type()) {
    case dom::element_type::OBJECT:
        for (auto f : dom::object(e))
            s += walk_dom(f.value);
        break;
    case dom::element_type::ARRAY:
        for (auto x : dom::array(e))
            s += walk_dom(x);
        break;
    case dom::element_type::UINT64:
    case dom::element_type::INT64:
        s += uint64_t(e.get_uint64());
        break;
    default:
        break;
    }
    return s;
}

int main(int argc, char **argv) {
    bool dom_mode = argc > 2 && !strcmp(argv[2], "dom");
    padded_string json = padded_string::load(argv[1]);
    long before = kib("VmRSS");
    auto t0 = std::chrono::steady_clock::now();
    double c0 = cpu_ms();
    uint64_t s;
    if (dom_mode) {
        dom::parser p;
        s = walk_dom(p.parse(json));
    } else {
        ondemand::parser p;
        auto doc = p.iterate(json);
        s = 0;
        for (auto f : doc.get_object())
            s += walk(f.value());
    }
    auto t1 = std::chrono::steady_clock::now();
    double c1 = cpu_ms() - c0;
    printf("simdjson %s (%s): sum %llu, %.1f ms wall, %.1f ms CPU, file %.1f MiB, RSS before %.1f "
           "MiB, peak %.1f MiB\n",
           dom_mode ? "DOM" : "On-Demand", simdjson::get_active_implementation()->name().c_str(),
           (unsigned long long)s, std::chrono::duration<double, std::milli>(t1 - t0).count(), c1,
           json.size() / 1048576.0, before / 1024.0, kib("VmHWM") / 1024.0);
}
