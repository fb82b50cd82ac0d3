#include "clab/io/AtomicFile.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

#include <fcntl.h>
#include <unistd.h>

namespace clab {

Status WriteFileAtomically(const std::string& path, std::string_view bytes) {
  static thread_local std::mt19937_64 rng(std::random_device{}());
  const std::string tmp = StrCat(path, ".tmp", rng());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return errors::Internal("Cannot create ", tmp, ": ", std::strerror(errno));
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string reason = std::strerror(errno);
      ::close(fd);
      std::remove(tmp.c_str());
      return errors::Internal("Cannot write ", tmp, ": ", reason);
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(tmp.c_str());
    return errors::Internal("Cannot flush ", tmp, ": ", reason);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(tmp.c_str());
    return errors::Internal("Cannot rename ", tmp, " to ", path, ": ", reason);
  }
  return OkStatus();
}

}  // namespace clab
