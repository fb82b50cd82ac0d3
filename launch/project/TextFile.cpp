#include "launch/project/TextFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace clab::launch {

StatusOr<std::string> ReadTextFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    const int error = errno;
    if (error == ENOENT) return errors::NotFound("cannot read '", path, "': no such file");
    return errors::Unavailable("cannot read '", path, "': ", std::strerror(error));
  }
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

Status WriteTextFile(const std::string& path, const std::string& text, unsigned mode) {
  const std::string tmp = path + ".tmp" + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return errors::Unavailable("cannot write '", path, "': ", std::strerror(errno));
  // Exactly `mode`, whatever the umask or a stale temporary file had: keys must be 0600.
  if (::fchmod(fd, mode) != 0) {
    const int error = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    return errors::Unavailable("cannot write '", path, "': ", std::strerror(error));
  }
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return errors::Unavailable("cannot write '", path, "': ", std::strerror(error));
    }
    done += static_cast<size_t>(n);
  }
  const bool synced = ::fsync(fd) == 0;
  const bool closed = ::close(fd) == 0;
  if (!synced || !closed || std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(tmp.c_str());
    return errors::Unavailable("cannot write '", path, "': ", std::strerror(error));
  }
  return OkStatus();
}

}  // namespace clab::launch
