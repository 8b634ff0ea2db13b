#include "lazy_libs.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

// How it works (x86-64 Linux; elsewhere TTM_LAZY_LIBS is OFF and the
// libraries are linked as usual, so load() has nothing to do).
//
// For every function the server calls in these libraries this file defines
// a hidden symbol of that name: `jmp *slot`. The slot first points at a
// resolver stub that saves the argument registers (integer, vector, and
// %al, which carries a variadic call's vector count: curl_easy_setopt),
// calls ttm_lazy_resolve (dlopen the library once, dlsym the name, store
// the address in the slot) and jumps to the function with the registers
// as they were. Later calls cost one indirect jump. Types never matter: the
// call is the caller's, unchanged. The lists below are exactly the symbols
// the server's objects import (nm -u); a new call into one of these
// libraries that is missing here fails to link, it cannot go unnoticed.

#define TTM_LAZY_CURL(X)                                                   \
  X(curl, curl_easy_cleanup) X(curl, curl_easy_escape)                     \
  X(curl, curl_easy_getinfo) X(curl, curl_easy_init)                       \
  X(curl, curl_easy_perform) X(curl, curl_easy_setopt)                     \
  X(curl, curl_easy_strerror) X(curl, curl_free) X(curl, curl_global_init) \
  X(curl, curl_slist_append) X(curl, curl_slist_free_all) X(curl, curl_url) \
  X(curl, curl_url_cleanup) X(curl, curl_url_get) X(curl, curl_url_set)

#define TTM_LAZY_CRYPTO(X)                                                 \
  X(crypto, BN_bin2bn) X(crypto, BN_free) X(crypto, BN_num_bits)           \
  X(crypto, ECDSA_SIG_free) X(crypto, ECDSA_SIG_new)                       \
  X(crypto, ECDSA_SIG_set0) X(crypto, EVP_Digest)                          \
  X(crypto, EVP_DigestVerify) X(crypto, EVP_DigestVerifyInit)              \
  X(crypto, EVP_MD_CTX_free) X(crypto, EVP_MD_CTX_new)                     \
  X(crypto, EVP_PKEY_CTX_free) X(crypto, EVP_PKEY_CTX_new_from_name)       \
  X(crypto, EVP_PKEY_free) X(crypto, EVP_PKEY_fromdata)                    \
  X(crypto, EVP_PKEY_fromdata_init) X(crypto, EVP_PKEY_new_raw_public_key) \
  X(crypto, EVP_sha256) X(crypto, OSSL_PARAM_BLD_free)                     \
  X(crypto, OSSL_PARAM_BLD_new) X(crypto, OSSL_PARAM_BLD_push_BN)          \
  X(crypto, OSSL_PARAM_BLD_push_octet_string)                              \
  X(crypto, OSSL_PARAM_BLD_push_utf8_string)                               \
  X(crypto, OSSL_PARAM_BLD_to_param) X(crypto, OSSL_PARAM_free)            \
  X(crypto, i2d_ECDSA_SIG)

#define TTM_LAZY_PQ(X)                                                     \
  X(pq, PQbackendPID) X(pq, PQclear) X(pq, PQcmdTuples)                    \
  X(pq, PQconnectdbParams) X(pq, PQconsumeInput)                           \
  X(pq, PQenterPipelineMode) X(pq, PQerrorMessage)                         \
  X(pq, PQescapeIdentifier) X(pq, PQexec) X(pq, PQexecParams)              \
  X(pq, PQexitPipelineMode) X(pq, PQfinish) X(pq, PQfreemem)               \
  X(pq, PQgetResult) X(pq, PQgetisnull) X(pq, PQgetlength)                 \
  X(pq, PQgetvalue) X(pq, PQnotifies) X(pq, PQntuples)                     \
  X(pq, PQpipelineSync) X(pq, PQresultErrorField)                          \
  X(pq, PQresultErrorMessage) X(pq, PQresultStatus)                        \
  X(pq, PQsendQueryParams) X(pq, PQstatus) X(pq, PQtransactionStatus)      \
  X(pq, PQunescapeBytea)

#define TTM_LAZY_SYSTEMD(X)                                                \
  X(systemd, sd_notify) X(systemd, sd_watchdog_enabled)

namespace {

/// One library: constant-initialized (no constructor runs at start-up, and
/// a trampoline works even before main). Guarded by load_mutex.
struct lazy_library {
  const char* soname;
  void* handle;
  char error[512];
};

/// One function: `slot` is where its trampoline jumps (the resolver stub,
/// then the function). Laid out for the assembly below.
struct lazy_symbol {
  void* slot;
  const char* name;
  lazy_library* lib;
};

std::mutex load_mutex;

/// dlopen once; the handle, or nullptr with `error` set.
void* open_library(lazy_library& lib) {
  std::lock_guard<std::mutex> guard{load_mutex};
  if (lib.handle == nullptr && lib.error[0] == '\0') {
    // RTLD_LOCAL: its symbols (and its dependencies') stay out of the
    // global scope, as they were out of the server's own.
    lib.handle = ::dlopen(lib.soname, RTLD_NOW | RTLD_LOCAL);
    if (lib.handle == nullptr) {
      const char* why = ::dlerror();
      std::snprintf(lib.error, sizeof lib.error, "cannot load %s: %s",
                    lib.soname, why ? why : "unknown error");
    }
  }
  return lib.handle;
}

} // namespace

extern "C" {

// Referenced by name from the assembly below: C linkage, hidden.
#define TTM_LAZY_DEFINE_LIB(lib, so)                                       \
  __attribute__((visibility("hidden"))) lazy_library ttm_lazy_lib_##lib{  \
    so, nullptr, {}};
TTM_LAZY_DEFINE_LIB(curl, "libcurl.so.4")
TTM_LAZY_DEFINE_LIB(crypto, "libcrypto.so.3")
TTM_LAZY_DEFINE_LIB(pq, "libpq.so.5")
TTM_LAZY_DEFINE_LIB(systemd, "libsystemd.so.0")

/// Called by the resolver stub with the symbol's descriptor: the function's
/// address, stored in the slot for later calls. A library that cannot be
/// loaded here is as fatal as one the dynamic loader could not find at
/// start (which is what happened before); a configured feature loads its
/// library at start-up through ttm::lazy::load and exits cleanly instead.
__attribute__((visibility("hidden"))) void*
ttm_lazy_resolve(lazy_symbol* sym) {
  void* handle = open_library(*sym->lib);
  void* fn = handle ? ::dlsym(handle, sym->name) : nullptr;
  if (fn == nullptr) {
    std::fprintf(stderr, "time-tracker-mcp: %s (for %s)\n",
                 handle ? "symbol not found" : sym->lib->error, sym->name);
    std::abort();
  }
  __atomic_store_n(&sym->slot, fn, __ATOMIC_RELEASE);
  return fn;
}

} // extern "C"

#if TTM_LAZY_LIBS
#if !defined(__x86_64__) || !defined(__linux__)
#error "TTM_LAZY_LIBS needs x86-64 Linux; configure with -DTTM_LAZY_LIBS=OFF"
#endif

// Every block pushes and pops its sections: the compiler's idea of the
// current section must stay true after a top-level asm.
// The resolver stub all trampolines share: %r11 holds the lazy_symbol.
// Stack at entry is 8 mod 16 (a call's return address); after %rbp, seven
// registers and 136 bytes it is 16-aligned for the call.
asm(R"(
  .pushsection .text
  .balign 16
  .type ttm_lazy_common,@function
ttm_lazy_common:
  push %rbp
  mov %rsp, %rbp
  push %rdi
  push %rsi
  push %rdx
  push %rcx
  push %r8
  push %r9
  push %rax
  sub $136, %rsp
  movdqu %xmm0, 0(%rsp)
  movdqu %xmm1, 16(%rsp)
  movdqu %xmm2, 32(%rsp)
  movdqu %xmm3, 48(%rsp)
  movdqu %xmm4, 64(%rsp)
  movdqu %xmm5, 80(%rsp)
  movdqu %xmm6, 96(%rsp)
  movdqu %xmm7, 112(%rsp)
  mov %r11, %rdi
  call ttm_lazy_resolve
  mov %rax, %r11
  movdqu 0(%rsp), %xmm0
  movdqu 16(%rsp), %xmm1
  movdqu 32(%rsp), %xmm2
  movdqu 48(%rsp), %xmm3
  movdqu 64(%rsp), %xmm4
  movdqu 80(%rsp), %xmm5
  movdqu 96(%rsp), %xmm6
  movdqu 112(%rsp), %xmm7
  add $136, %rsp
  pop %rax
  pop %r9
  pop %r8
  pop %rcx
  pop %rdx
  pop %rsi
  pop %rdi
  pop %rbp
  jmp *%r11
  .size ttm_lazy_common, .-ttm_lazy_common
  .popsection

  .macro TTM_LAZY lib, name
  .pushsection .data
  .balign 8
.Lttm_desc_\name:
  .quad .Lttm_res_\name
  .quad .Lttm_str_\name
  .quad ttm_lazy_lib_\lib
  .popsection
  .pushsection .rodata
.Lttm_str_\name:
  .asciz "\name"
  .popsection
  .pushsection .text
  .balign 16
  .globl \name
  .hidden \name
  .type \name,@function
\name:
  jmp *.Lttm_desc_\name(%rip)
.Lttm_res_\name:
  lea .Lttm_desc_\name(%rip), %r11
  jmp ttm_lazy_common
  .size \name, .-\name
  .popsection
  .endm
)");

#define TTM_LAZY_ASM(lib, name) asm("TTM_LAZY " #lib ", " #name);
TTM_LAZY_CURL(TTM_LAZY_ASM)
TTM_LAZY_CRYPTO(TTM_LAZY_ASM)
TTM_LAZY_PQ(TTM_LAZY_ASM)
TTM_LAZY_SYSTEMD(TTM_LAZY_ASM)
#endif

namespace ttm::lazy {

namespace {

lazy_library& entry(library lib) {
  switch (lib) {
  case library::curl:
    return ttm_lazy_lib_curl;
  case library::crypto:
    return ttm_lazy_lib_crypto;
  case library::pq:
    return ttm_lazy_lib_pq;
  case library::systemd:
    break;
  }
  return ttm_lazy_lib_systemd;
}

} // namespace

std::string load(library lib) {
#if TTM_LAZY_LIBS
  auto& e = entry(lib);
  return open_library(e) ? std::string{} : std::string{e.error};
#else
  (void)lib; // linked as usual: the dynamic loader has loaded it
  return {};
#endif
}

const char* soname(library lib) {
  return entry(lib).soname;
}

} // namespace ttm::lazy
