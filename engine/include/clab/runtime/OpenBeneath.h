// Opening a path below an open directory so that nothing on the way leads out of it, even
// when the path changes while it is opened (a directory swapped for a symbolic link):
// openat2() with RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS where the kernel has it (Linux
// 5.6 and later; found once with a probe call), else one component at a time with openat()
// and O_NOFOLLOW, each directory checked with fstat(). The fallback refuses every symbolic
// link on the way; openat2 follows one only while it stays below the directory.
//
// The results are file descriptors, or -errno: EXDEV or ELOOP when the path leads out of
// the directory or through a link the rules refuse, ENOENT when something is missing.
#pragma once

#include <sys/types.h>

#include <string>

namespace clab::beneath {

// Whether the kernel answers openat2 (probed once).
bool KernelHasOpenat2();
// Tests run both ways; the default is openat2 when the kernel has it.
void UseOpenat2(bool use);
bool UsingOpenat2();

// `relative`: components separated by '/', without "..", not starting with '/'; "" is the
// directory itself. O_CLOEXEC is always added.
int Open(int dir_fd, const std::string& relative, int flags, mode_t mode = 0);
// The directory `relative` below `dir_fd`, opened for reading (so that it can be synced);
// missing components are made (mode 0755) when `create`.
int OpenDirectory(int dir_fd, const std::string& relative, bool create);

}  // namespace clab::beneath
