/* web_export.h — marks the functions the page calls (the JavaScript in web/). In the
 * wasm build (clang --target=wasm32-wasi, scripts/web.sh) each is exported
 * under its own name; in the native build (tests/test_wasm.sh) the macro is
 * empty and the same functions are called from C. */
#ifndef WEB_EXPORT_H
#define WEB_EXPORT_H

#if defined(__wasm__)
#define WEB_EXPORT(name) __attribute__((export_name(#name))) name
#else
#define WEB_EXPORT(name) name
#endif

#endif
