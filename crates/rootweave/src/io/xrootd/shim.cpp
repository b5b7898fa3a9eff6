// A C interface to the XRootD client library (XrdCl) for rootweave's `io::xrootd`: open a
// file, read groups of chunks as vector reads sent at once, close. The splitting of reads
// into groups, retries and error kinds are decided on the Rust side; this file only drives
// XrdCl's asynchronous calls and waits for their answers.

#include <XrdCl/XrdClDefaultEnv.hh>
#include <XrdCl/XrdClEnv.hh>
#include <XrdCl/XrdClFile.hh>
#include <XrdCl/XrdClFileSystem.hh>
#include <XrdCl/XrdClURL.hh>
#include <XProtocol/XProtocol.hh>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <pthread.h>
#include <string>
#include <vector>

extern "C" {

// What went wrong, for the Rust side: `kind` 0 none, 1 not found, 2 denied, 3 timed out,
// 4 network (worth a retry), 5 anything else.
struct rw_xrd_error {
  int kind;
  char message[480];
};

// The server's limits of one vector read: chunks per request and bytes per chunk.
struct rw_xrd_limits {
  uint32_t iov_max;
  uint32_t ior_max;
};

struct rw_xrd_file;
}

namespace {

int kind_of(const XrdCl::XRootDStatus &status) {
  if (status.IsOK()) return 0;
  switch (status.code) {
    case XrdCl::errErrorResponse:
      switch (status.errNo) {
        case kXR_NotFound: return 1;
        case kXR_NotAuthorized: return 2;
        case kXR_Overloaded:
        case kXR_ServerError:
        case kXR_IOError:
        case kXR_noserver: return 4;
        default: return 5;
      }
    case XrdCl::errNotFound: return 1;
    case XrdCl::errAuthFailed:
    case XrdCl::errLoginFailed: return 2;
    case XrdCl::errOperationExpired:
    case XrdCl::errSocketTimeout: return 3;
    case XrdCl::errSocketError:
    case XrdCl::errSocketDisconnected:
    case XrdCl::errStreamDisconnect:
    case XrdCl::errConnectionError:
    case XrdCl::errInvalidSession:
    case XrdCl::errHandShakeFailed:
    case XrdCl::errPollerError:
    case XrdCl::errRetry:
    case XrdCl::errOperationInterrupted: return 4;
    default: return 5;
  }
}

void set_error(rw_xrd_error *error, int kind, const std::string &message) {
  if (error == nullptr) return;
  error->kind = kind;
  std::snprintf(error->message, sizeof error->message, "%s", message.c_str());
}

void set_status(rw_xrd_error *error, const XrdCl::XRootDStatus &status) {
  set_error(error, kind_of(status), status.ToStr());
}

// Counts the answers still awaited and keeps the first failure. Waits on a POSIX condition
// variable: std::condition_variable::wait and std::call_once bind to symbols of the newest
// C++ runtime and C library (GLIBCXX_3.4.30, GLIBC_2.34) when built on a current system,
// and the bridge must load beside older XRootD installations.
class Waiter {
 public:
  explicit Waiter(size_t pending) : pending_(pending) {}
  ~Waiter() { pthread_cond_destroy(&ready_); }
  Waiter(const Waiter &) = delete;
  Waiter &operator=(const Waiter &) = delete;

  void done(int kind, const std::string &message) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (kind != 0 && kind_ == 0) {
      kind_ = kind;
      message_ = message;
    }
    if (--pending_ == 0) pthread_cond_broadcast(&ready_);
  }

  // Waits for every answer; false (with `error` filled) if one failed.
  bool wait(rw_xrd_error *error) {
    std::unique_lock<std::mutex> lock(mutex_);
    while (pending_ != 0) pthread_cond_wait(&ready_, mutex_.native_handle());
    if (kind_ != 0) {
      set_error(error, kind_, message_);
      return false;
    }
    return true;
  }

 private:
  std::mutex mutex_;
  pthread_cond_t ready_ = PTHREAD_COND_INITIALIZER;
  size_t pending_;
  int kind_ = 0;
  std::string message_;
};

// The answer to one vector read: checks that every byte asked for came back.
class ReadvHandler : public XrdCl::ResponseHandler {
 public:
  ReadvHandler(Waiter *waiter, uint64_t expected) : waiter_(waiter), expected_(expected) {}

  void HandleResponse(XrdCl::XRootDStatus *status, XrdCl::AnyObject *response) override {
    int kind = kind_of(*status);
    std::string message = kind != 0 ? status->ToStr() : std::string();
    if (kind == 0) {
      XrdCl::VectorReadInfo *info = nullptr;
      if (response != nullptr) response->Get(info);
      if (info == nullptr || info->GetSize() != expected_) {
        kind = 5;
        message = "the server sent " + std::to_string(info ? info->GetSize() : 0) +
                  " bytes of the " + std::to_string(expected_) + " asked";
      }
    }
    delete status;
    delete response;
    Waiter *waiter = waiter_;
    delete this;
    waiter->done(kind, message);
  }

 private:
  Waiter *waiter_;
  uint64_t expected_;
};

// The answer to the configuration query: the server's vector read limits.
class LimitsHandler : public XrdCl::ResponseHandler {
 public:
  LimitsHandler(Waiter *waiter, rw_xrd_limits *limits) : waiter_(waiter), limits_(limits) {}

  void HandleResponse(XrdCl::XRootDStatus *status, XrdCl::AnyObject *response) override {
    // A server that does not answer keeps the protocol's defaults: never an error.
    XrdCl::Buffer *buffer = nullptr;
    if (status->IsOK() && response != nullptr) response->Get(buffer);
    if (buffer != nullptr) {
      std::string text(buffer->GetBuffer(), buffer->GetSize());
      unsigned long iov = 0, ior = 0;
      if (std::sscanf(text.c_str(), "%lu %lu", &iov, &ior) == 2 && iov > 0 && ior > 0) {
        limits_->iov_max = static_cast<uint32_t>(iov);
        limits_->ior_max = static_cast<uint32_t>(ior);
      }
    }
    delete status;
    delete response;
    Waiter *waiter = waiter_;
    delete this;
    waiter->done(0, std::string());
  }

 private:
  Waiter *waiter_;
  rw_xrd_limits *limits_;
};

// Settings of the client taken from the first open, unless the shell's XRD_* variables
// set them: how long a connection is tried, and how often timeouts are checked.
void configure_once(uint16_t connect_timeout) {
  // A function-local static: initialised once, by the first caller, others waiting.
  static const bool configured = [connect_timeout] {
    XrdCl::Env *env = XrdCl::DefaultEnv::GetEnv();
    env->PutInt("ConnectionWindow", connect_timeout);
    env->PutInt("ConnectionRetry", 1);
    env->PutInt("TimeoutResolution", 1);
    return true;
  }();
  (void)configured;
}

}  // namespace

struct rw_xrd_file {
  XrdCl::File file;
};

extern "C" {

// Opens `url` for reading; on success, fills `size` and `limits`, and reads the first and
// the last `end_block` bytes into `ends` (the head, then the tail that does not overlap it;
// `ends` holds 2 * end_block bytes), while the server's limits are asked at the same time.
rw_xrd_file *rw_xrd_open(const char *url, uint16_t timeout, uint16_t connect_timeout,
                         uint64_t end_block, uint8_t *ends, uint64_t *size,
                         rw_xrd_limits *limits, rw_xrd_error *error) {
  configure_once(connect_timeout);
  rw_xrd_file *handle = new rw_xrd_file();
  XrdCl::XRootDStatus status =
      handle->file.Open(url, XrdCl::OpenFlags::Read, XrdCl::Access::None, timeout);
  if (!status.IsOK()) {
    set_status(error, status);
    delete handle;
    return nullptr;
  }
  XrdCl::StatInfo *info = nullptr;
  status = handle->file.Stat(false, info, timeout);
  if (!status.IsOK() || info == nullptr) {
    set_status(error, status);
    delete info;
    (void)handle->file.Close(timeout);
    delete handle;
    return nullptr;
  }
  *size = info->GetSize();
  delete info;

  uint64_t head = end_block < *size ? end_block : *size;
  uint64_t tail_start = *size > end_block ? *size - end_block : 0;
  if (tail_start < head) tail_start = head;
  XrdCl::ChunkList chunks;
  if (head > 0) chunks.emplace_back(0, static_cast<uint32_t>(head), ends);
  if (tail_start < *size)
    chunks.emplace_back(tail_start, static_cast<uint32_t>(*size - tail_start), ends + head);

  std::string server;
  bool ask_limits = handle->file.GetProperty("DataServer", server) && !server.empty();
  if (ask_limits && server.find("://") == std::string::npos) server = "root://" + server;

  Waiter waiter((chunks.empty() ? 0 : 1) + (ask_limits ? 1 : 0));
  XrdCl::FileSystem *fs = ask_limits ? new XrdCl::FileSystem(XrdCl::URL(server)) : nullptr;
  XrdCl::Buffer query;
  query.FromString("readv_iov_max readv_ior_max");
  if (ask_limits) {
    LimitsHandler *handler = new LimitsHandler(&waiter, limits);
    XrdCl::XRootDStatus sent = fs->Query(XrdCl::QueryCode::Config, query, handler, timeout);
    if (!sent.IsOK()) {
      delete handler;
      waiter.done(0, std::string());
    }
  }
  if (!chunks.empty()) {
    uint64_t expected = head + (*size - tail_start);
    ReadvHandler *handler = new ReadvHandler(&waiter, expected);
    XrdCl::XRootDStatus sent = handle->file.VectorRead(chunks, nullptr, handler, timeout);
    if (!sent.IsOK()) {
      delete handler;
      waiter.done(kind_of(sent), sent.ToStr());
    }
  }
  bool ok = waiter.wait(error);
  delete fs;
  if (!ok) {
    (void)handle->file.Close(timeout);
    delete handle;
    return nullptr;
  }
  return handle;
}

// Reads `count` chunks (offset, length, buffer) sent as vector reads at once, one per
// group: group `g` holds the chunks from `group_ends[g - 1]` (0 for the first) up to
// `group_ends[g]`. Returns 0, or -1 with `error` filled.
int rw_xrd_readv(rw_xrd_file *handle, size_t count, const uint64_t *offsets,
                 const uint32_t *lengths, uint8_t *const *buffers, size_t groups,
                 const size_t *group_ends, uint16_t timeout, rw_xrd_error *error) {
  if (groups == 0) return 0;
  Waiter waiter(groups);
  size_t start = 0;
  for (size_t g = 0; g < groups; ++g) {
    size_t end = group_ends[g] < count ? group_ends[g] : count;
    XrdCl::ChunkList chunks;
    uint64_t expected = 0;
    for (size_t i = start; i < end; ++i) {
      chunks.emplace_back(offsets[i], lengths[i], buffers[i]);
      expected += lengths[i];
    }
    start = end;
    ReadvHandler *handler = new ReadvHandler(&waiter, expected);
    XrdCl::XRootDStatus sent = handle->file.VectorRead(chunks, nullptr, handler, timeout);
    if (!sent.IsOK()) {
      delete handler;
      waiter.done(kind_of(sent), sent.ToStr());
    }
  }
  return waiter.wait(error) ? 0 : -1;
}

// The URL of the server that holds the file (after redirects), into `out` (NUL-ended).
void rw_xrd_data_server(rw_xrd_file *handle, char *out, size_t capacity) {
  std::string server;
  if (!handle->file.GetProperty("DataServer", server)) server.clear();
  std::snprintf(out, capacity, "%s", server.c_str());
}

// Closes the file and frees the handle.
void rw_xrd_close(rw_xrd_file *handle, uint16_t timeout) {
  if (handle == nullptr) return;
  if (handle->file.IsOpen()) (void)handle->file.Close(timeout);
  delete handle;
}

}  // extern "C"
