// Whether a task's host is this machine: loopback names and addresses (localhost,
// 127.0.0.0/8, ::1), this machine's host name, or an address of one of its interfaces. A
// local run starts every task here, so a project whose hosts are elsewhere is said so.
#pragma once

#include <QString>

namespace clab::ui {

bool IsThisMachine(const QString& host);

}  // namespace clab::ui
