// The fault-injecting VFS (fault_vfs.hpp): a shim over the default VFS.
// Each file it opens is a fault_file followed by the real VFS's file; every
// method forwards to the real one, after asking hit() whether this call is
// the one to fail.

#include "fault_vfs.hpp"

#include <sqlite3.h>

#include <cstring>
#include <mutex>
#include <stdexcept>

namespace ttm::test::fault_vfs {

namespace {

struct plan {
  bool armed = false;
  kind k = kind::write;
  std::uint64_t at = 0; ///< the counter value that fails
  int code = SQLITE_IOERR;
  bool sticky = false;
  std::uint64_t fired = 0;
};

counts calls{};
plan current;

sqlite3_vfs* real = nullptr;
sqlite3_vfs shim{};

/// Counts a call of `k`; true if it is to fail (then `code` is why).
bool hit(kind k, int& code) {
  auto n = ++calls[static_cast<std::size_t>(k)];
  if (!current.armed || current.k != k)
    return false;
  if (n == current.at || (current.sticky && n > current.at)) {
    ++current.fired;
    code = current.code;
    return true;
  }
  return false;
}

struct fault_file {
  sqlite3_file base; ///< pMethods: ours
  // The real file follows, at real_of().
};

sqlite3_file* real_of(sqlite3_file* f) {
  return reinterpret_cast<sqlite3_file*>(reinterpret_cast<char*>(f)
                                         + sizeof(fault_file));
}

const sqlite3_io_methods* methods_of(sqlite3_file* f) {
  return real_of(f)->pMethods;
}

int x_close(sqlite3_file* f) {
  return methods_of(f)->xClose(real_of(f));
}

int x_read(sqlite3_file* f, void* buf, int amt, sqlite3_int64 off) {
  if (int code = 0; hit(kind::read, code))
    return code;
  return methods_of(f)->xRead(real_of(f), buf, amt, off);
}

int x_write(sqlite3_file* f, const void* buf, int amt, sqlite3_int64 off) {
  if (int code = 0; hit(kind::write, code))
    return code;
  return methods_of(f)->xWrite(real_of(f), buf, amt, off);
}

int x_truncate(sqlite3_file* f, sqlite3_int64 size) {
  if (int code = 0; hit(kind::truncate, code))
    return code;
  return methods_of(f)->xTruncate(real_of(f), size);
}

int x_sync(sqlite3_file* f, int flags) {
  if (int code = 0; hit(kind::sync, code))
    return code;
  return methods_of(f)->xSync(real_of(f), flags);
}

int x_file_size(sqlite3_file* f, sqlite3_int64* size) {
  return methods_of(f)->xFileSize(real_of(f), size);
}

int x_lock(sqlite3_file* f, int level) {
  if (int code = 0; hit(kind::lock, code))
    return code;
  return methods_of(f)->xLock(real_of(f), level);
}

int x_unlock(sqlite3_file* f, int level) {
  return methods_of(f)->xUnlock(real_of(f), level);
}

int x_check_reserved(sqlite3_file* f, int* out) {
  return methods_of(f)->xCheckReservedLock(real_of(f), out);
}

int x_file_control(sqlite3_file* f, int op, void* arg) {
  return methods_of(f)->xFileControl(real_of(f), op, arg);
}

int x_sector_size(sqlite3_file* f) {
  return methods_of(f)->xSectorSize(real_of(f));
}

int x_device_characteristics(sqlite3_file* f) {
  return methods_of(f)->xDeviceCharacteristics(real_of(f));
}

int x_shm_map(sqlite3_file* f, int region, int size, int extend,
              void volatile** out) {
  if (int code = 0; hit(kind::shm_map, code)) {
    *out = nullptr;
    return code;
  }
  return methods_of(f)->xShmMap(real_of(f), region, size, extend, out);
}

int x_shm_lock(sqlite3_file* f, int offset, int n, int flags) {
  // Only taking a lock fails: letting go of one cannot, in the real VFS.
  if (int code = 0; (flags & SQLITE_SHM_LOCK) && hit(kind::shm_lock, code))
    return code;
  return methods_of(f)->xShmLock(real_of(f), offset, n, flags);
}

void x_shm_barrier(sqlite3_file* f) {
  methods_of(f)->xShmBarrier(real_of(f));
}

int x_shm_unmap(sqlite3_file* f, int del) {
  return methods_of(f)->xShmUnmap(real_of(f), del);
}

int x_fetch(sqlite3_file* f, sqlite3_int64 off, int amt, void** out) {
  return methods_of(f)->xFetch(real_of(f), off, amt, out);
}

int x_unfetch(sqlite3_file* f, sqlite3_int64 off, void* p) {
  return methods_of(f)->xUnfetch(real_of(f), off, p);
}

const sqlite3_io_methods io_methods = {
  3,
  x_close,
  x_read,
  x_write,
  x_truncate,
  x_sync,
  x_file_size,
  x_lock,
  x_unlock,
  x_check_reserved,
  x_file_control,
  x_sector_size,
  x_device_characteristics,
  x_shm_map,
  x_shm_lock,
  x_shm_barrier,
  x_shm_unmap,
  x_fetch,
  x_unfetch,
};

int x_open(sqlite3_vfs*, const char* name, sqlite3_file* f, int flags,
           int* out_flags) {
  auto* inner = real_of(f);
  std::memset(inner, 0, static_cast<std::size_t>(real->szOsFile));
  auto rc = real->xOpen(real, name, inner, flags, out_flags);
  // A failed open may still have set methods: SQLite then calls xClose.
  f->pMethods = inner->pMethods ? &io_methods : nullptr;
  return rc;
}

int x_delete(sqlite3_vfs*, const char* name, int sync_dir) {
  return real->xDelete(real, name, sync_dir);
}

int x_access(sqlite3_vfs*, const char* name, int flags, int* out) {
  return real->xAccess(real, name, flags, out);
}

int x_full_pathname(sqlite3_vfs*, const char* name, int n, char* out) {
  return real->xFullPathname(real, name, n, out);
}

void* x_dl_open(sqlite3_vfs*, const char* name) {
  return real->xDlOpen(real, name);
}

void x_dl_error(sqlite3_vfs*, int n, char* out) {
  real->xDlError(real, n, out);
}

void (*x_dl_sym(sqlite3_vfs*, void* h, const char* sym))(void) {
  return real->xDlSym(real, h, sym);
}

void x_dl_close(sqlite3_vfs*, void* h) {
  real->xDlClose(real, h);
}

int x_randomness(sqlite3_vfs*, int n, char* out) {
  return real->xRandomness(real, n, out);
}

int x_sleep(sqlite3_vfs*, int us) {
  return real->xSleep(real, us);
}

int x_current_time(sqlite3_vfs*, double* out) {
  return real->xCurrentTime(real, out);
}

int x_get_last_error(sqlite3_vfs*, int n, char* out) {
  return real->xGetLastError(real, n, out);
}

int x_current_time_int64(sqlite3_vfs*, sqlite3_int64* out) {
  return real->xCurrentTimeInt64(real, out);
}

int x_set_system_call(sqlite3_vfs*, const char* name,
                      sqlite3_syscall_ptr p) {
  return real->xSetSystemCall(real, name, p);
}

sqlite3_syscall_ptr x_get_system_call(sqlite3_vfs*, const char* name) {
  return real->xGetSystemCall(real, name);
}

const char* x_next_system_call(sqlite3_vfs*, const char* name) {
  return real->xNextSystemCall(real, name);
}

} // namespace

const char* to_string(kind k) {
  switch (k) {
    case kind::write:
      return "write";
    case kind::sync:
      return "sync";
    case kind::lock:
      return "lock";
    case kind::shm_map:
      return "shm_map";
    case kind::shm_lock:
      return "shm_lock";
    case kind::truncate:
      return "truncate";
    case kind::read:
      return "read";
  }
  return "?";
}

const char* name() {
  static std::once_flag once;
  std::call_once(once, [] {
    real = sqlite3_vfs_find(nullptr);
    if (real == nullptr || real->iVersion < 3)
      throw std::runtime_error("fault_vfs: no default VFS of version 3");
    shim.iVersion = 3;
    shim.szOsFile = static_cast<int>(sizeof(fault_file)) + real->szOsFile;
    shim.mxPathname = real->mxPathname;
    shim.zName = "ttm_fault";
    shim.xOpen = x_open;
    shim.xDelete = x_delete;
    shim.xAccess = x_access;
    shim.xFullPathname = x_full_pathname;
    shim.xDlOpen = x_dl_open;
    shim.xDlError = x_dl_error;
    shim.xDlSym = x_dl_sym;
    shim.xDlClose = x_dl_close;
    shim.xRandomness = x_randomness;
    shim.xSleep = x_sleep;
    shim.xCurrentTime = x_current_time;
    shim.xGetLastError = x_get_last_error;
    shim.xCurrentTimeInt64 = x_current_time_int64;
    shim.xSetSystemCall = x_set_system_call;
    shim.xGetSystemCall = x_get_system_call;
    shim.xNextSystemCall = x_next_system_call;
    if (sqlite3_vfs_register(&shim, 0) != SQLITE_OK)
      throw std::runtime_error("fault_vfs: cannot register the VFS");
  });
  return shim.zName;
}

counts counted() {
  return calls;
}

void reset() {
  calls = {};
  current = {};
}

void arm(kind k, std::uint64_t nth, int code, bool sticky) {
  current = {true, k, calls[static_cast<std::size_t>(k)] + nth, code, sticky,
             0};
}

void disarm() {
  current.armed = false;
}

std::uint64_t fired() {
  return current.fired;
}

} // namespace ttm::test::fault_vfs
