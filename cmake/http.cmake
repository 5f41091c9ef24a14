# The HTTP status endpoint (daemon.status_listen: GET /status, GET /metrics)
# on libmicrohttpd. CZK_HTTP=OFF builds without it: czk_httpstatus_start then
# answers CZK_ERR_UNSUPPORTED.
option(CZK_HTTP "HTTP status endpoint (libmicrohttpd)" ON)
if(CZK_HTTP)
  pkg_check_modules(MHD REQUIRED IMPORTED_TARGET libmicrohttpd)
  target_link_libraries(czk_httpstatus PRIVATE PkgConfig::MHD)
  target_compile_definitions(czk_httpstatus PRIVATE CZK_HAVE_HTTP=1)
endif()
