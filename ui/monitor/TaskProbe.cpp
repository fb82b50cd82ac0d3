#include "monitor/TaskProbe.h"

#include "clab/distributed/ClusterSpec.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

namespace clab::ui {
namespace {

constexpr int kPollSliceMs = 100;

// Closes the socket whatever way the probe ends.
struct Socket {
  int fd = -1;
  ~Socket() {
    if (fd >= 0) ::close(fd);
  }
};

// Waits for `events` on `fd` in slices, so that a stopping watcher is not held up. 1: ready,
// 0: timed out or stopping, -1: poll failed.
int WaitFor(int fd, short events, const std::atomic<bool>& stopping, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!stopping) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return 0;
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, kPollSliceMs)));
    if (n > 0) return 1;
    if (n < 0 && errno != EINTR) return -1;
  }
  return 0;
}

std::string Printable(const char* data, size_t size) {
  std::string text;
  for (size_t i = 0; i < size && text.size() < 40; ++i) {
    const unsigned char c = static_cast<unsigned char>(data[i]);
    if (c == '\r' || c == '\n') break;
    text += c >= 32 && c < 127 ? static_cast<char>(c) : '.';
  }
  return text;
}

}  // namespace

ProbeResult TaskProbe::check(const std::string& address, bool tls, const std::atomic<bool>& stopping,
                             std::chrono::milliseconds timeout) {
  const auto parsed = HostPort::Parse(address);
  if (!parsed.ok()) return {WatchProblem::kBadAddress, std::string(parsed.status().message())};
  std::string host = parsed->host;
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (const int rc = ::getaddrinfo(host.c_str(), std::to_string(parsed->port).c_str(), &hints, &found); rc != 0)
    return {WatchProblem::kBadAddress, "cannot resolve host '" + host + "': " + ::gai_strerror(rc)};
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> list(found, &::freeaddrinfo);

  Socket socket;
  socket.fd = ::socket(found->ai_family, found->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, found->ai_protocol);
  if (socket.fd < 0) return {WatchProblem::kNoAnswer, std::string("cannot make a socket: ") + std::strerror(errno)};
  if (::connect(socket.fd, found->ai_addr, found->ai_addrlen) != 0 && errno != EINPROGRESS) {
    const int error = errno;
    return {error == ECONNREFUSED ? WatchProblem::kRefused : WatchProblem::kNoAnswer,
            address + ": " + std::strerror(error)};
  }
  const int connected = WaitFor(socket.fd, POLLOUT, stopping, timeout);
  if (connected <= 0)
    return {WatchProblem::kNoAnswer,
            address + ": no answer to the connection within " + std::to_string(timeout.count()) + " ms"};
  int error = 0;
  socklen_t length = sizeof error;
  ::getsockopt(socket.fd, SOL_SOCKET, SO_ERROR, &error, &length);
  if (error != 0)
    return {error == ECONNREFUSED ? WatchProblem::kRefused : WatchProblem::kNoAnswer,
            address + ": " + std::strerror(error)};
  if (tls) return {};

  // HTTP/2: the client's preface and an empty SETTINGS frame; a server's first frame is its
  // own SETTINGS (type 4 on stream 0).
  static const char kPreface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
  std::string hello(kPreface, sizeof kPreface - 1);
  hello += std::string("\x00\x00\x00\x04\x00\x00\x00\x00\x00", 9);
  if (::send(socket.fd, hello.data(), hello.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(hello.size()))
    return {WatchProblem::kNotGrpc, address + ": the connection closed before HTTP/2's handshake"};
  char reply[64];
  size_t got = 0;
  while (got < 9) {
    if (WaitFor(socket.fd, POLLIN, stopping, timeout) <= 0) {
      if (stopping) return {};
      return {WatchProblem::kNotGrpc, address +
                                          " accepted the connection but sent nothing back to HTTP/2's "
                                          "handshake within " +
                                          std::to_string(timeout.count()) + " ms"};
    }
    const ssize_t n = ::recv(socket.fd, reply + got, sizeof reply - got, 0);
    if (n == 0)
      return {WatchProblem::kNotGrpc, address + " accepted the connection and closed it at HTTP/2's handshake"};
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return {WatchProblem::kNotGrpc, address + ": " + std::strerror(errno)};
    }
    got += static_cast<size_t>(n);
  }
  const bool settings = reply[3] == 0x04 && (reply[5] & 0x7f) == 0 && reply[6] == 0 && reply[7] == 0 && reply[8] == 0;
  if (!settings)
    return {WatchProblem::kNotGrpc, address + " answered, but not in HTTP/2: \"" + Printable(reply, got) + "\""};
  return {};
}

QString WatchProblemName(WatchProblem problem) {
  switch (problem) {
    case WatchProblem::kNone: return "none";
    case WatchProblem::kBadAddress: return "bad address";
    case WatchProblem::kRefused: return "refused";
    case WatchProblem::kNoAnswer: return "no answer";
    case WatchProblem::kNotGrpc: return "not grpc";
    case WatchProblem::kNotClusterLab: return "not clusterlab";
    case WatchProblem::kTensorFlow: return "tensorflow";
  }
  return "?";
}

}  // namespace clab::ui
