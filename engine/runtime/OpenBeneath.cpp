#include "clab/runtime/OpenBeneath.h"

#include <absl/strings/str_split.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <vector>

namespace clab::beneath {
namespace {

int CallOpenat2(int dir_fd, const char* path, int flags, mode_t mode) {
#ifdef SYS_openat2
  struct open_how how {};
  how.flags = static_cast<uint64_t>(flags | O_CLOEXEC);
  how.mode = (flags & (O_CREAT | O_TMPFILE)) != 0 ? mode : 0;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  for (;;) {
    const long fd = ::syscall(SYS_openat2, dir_fd, path, &how, sizeof(how));
    if (fd >= 0) return static_cast<int>(fd);
    // EAGAIN: a rename elsewhere raced the lookup; the kernel asks to try again.
    if (errno != EINTR && errno != EAGAIN) return -errno;
  }
#else
  (void)dir_fd, (void)path, (void)flags, (void)mode;
  return -ENOSYS;
#endif
}

std::atomic<int>& Choice() {
  static std::atomic<int> choice{-1};  // -1: not decided yet
  return choice;
}

std::vector<std::string> Components(const std::string& relative) {
  std::vector<std::string> parts;
  for (absl::string_view part : absl::StrSplit(relative, '/', absl::SkipEmpty())) {
    if (part == ".") continue;
    parts.emplace_back(part);
  }
  return parts;
}

// Whether `name` in `dir_fd` is a symbolic link: where O_NOFOLLOW met one (which says
// ENOTDIR with O_DIRECTORY), the path leads out rather than to nothing. errno is kept.
bool IsLink(int dir_fd, const std::string& name) {
  const int saved = errno;
  struct stat link {};
  const bool is_link = ::fstatat(dir_fd, name.c_str(), &link, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(link.st_mode);
  errno = saved;
  return is_link;
}

// One directory below `dir_fd`, never through a symbolic link.
int StepInto(int dir_fd, const std::string& name) {
  if (name == "..") return -EXDEV;
  const int fd = ::openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return IsLink(dir_fd, name) ? -ELOOP : -errno;
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISDIR(info.st_mode)) {
    ::close(fd);
    return -ENOTDIR;
  }
  return fd;
}

int OpenByComponents(int dir_fd, const std::vector<std::string>& parts, int flags, mode_t mode) {
  if (parts.empty()) {
    const int fd = ::openat(dir_fd, ".", flags | O_CLOEXEC);
    return fd >= 0 ? fd : -errno;
  }
  int current = dir_fd;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    const int next = StepInto(current, parts[i]);
    if (current != dir_fd) ::close(current);
    if (next < 0) return next;
    current = next;
  }
  int fd = -EXDEV;
  if (parts.back() != "..") {
    fd = ::openat(current, parts.back().c_str(), flags | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0) fd = IsLink(current, parts.back()) ? -ELOOP : -errno;
  }
  if (current != dir_fd) ::close(current);
  if (fd >= 0 && (flags & O_DIRECTORY) != 0) {
    struct stat info {};
    if (::fstat(fd, &info) != 0 || !S_ISDIR(info.st_mode)) {
      ::close(fd);
      return -ENOTDIR;
    }
  }
  return fd;
}

}  // namespace

bool KernelHasOpenat2() {
  static const bool has = [] {
    const int fd = CallOpenat2(AT_FDCWD, ".", O_RDONLY | O_DIRECTORY, 0);
    if (fd < 0) return false;
    ::close(fd);
    return true;
  }();
  return has;
}

void UseOpenat2(bool use) { Choice().store(use && KernelHasOpenat2() ? 1 : 0); }

bool UsingOpenat2() {
  int choice = Choice().load();
  if (choice < 0) {
    choice = KernelHasOpenat2() ? 1 : 0;
    Choice().store(choice);
  }
  return choice == 1;
}

int Open(int dir_fd, const std::string& relative, int flags, mode_t mode) {
  const std::vector<std::string> parts = Components(relative);
  for (const std::string& part : parts)
    if (part == "..") return -EXDEV;
  if (UsingOpenat2()) {
    std::string joined;
    for (const std::string& part : parts) joined += (joined.empty() ? "" : "/") + part;
    return CallOpenat2(dir_fd, joined.empty() ? "." : joined.c_str(), flags, mode);
  }
  return OpenByComponents(dir_fd, parts, flags, mode);
}

int OpenDirectory(int dir_fd, const std::string& relative, bool create) {
  const int flags = O_RDONLY | O_DIRECTORY;
  if (!create) return Open(dir_fd, relative, flags);
  const std::vector<std::string> parts = Components(relative);
  int current = ::openat(dir_fd, ".", flags | O_CLOEXEC);
  if (current < 0) return -errno;
  for (const std::string& part : parts) {
    int next = Open(current, part, flags);
    if (next == -ENOENT) {
      if (::mkdirat(current, part.c_str(), 0755) != 0 && errno != EEXIST) {
        next = -errno;
      } else {
        next = Open(current, part, flags);
      }
    }
    ::close(current);
    if (next < 0) return next;
    current = next;
  }
  return current;
}

}  // namespace clab::beneath
