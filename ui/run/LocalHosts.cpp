#include "run/LocalHosts.h"

#include "clab/distributed/ClusterSpec.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <unistd.h>

namespace clab::ui {

bool IsThisMachine(const QString& host) {
  QString name = host.trimmed();
  if (name.startsWith('[') && name.endsWith(']')) name = name.mid(1, name.size() - 2);
  HostPort address{name.toStdString(), 1};
  if (address.IsLoopback()) return true;
  char own[256] = {};
  if (::gethostname(own, sizeof own - 1) == 0) {
    const QString hostname = QString::fromLocal8Bit(own);
    if (name.compare(hostname, Qt::CaseInsensitive) == 0 ||
        name.compare(hostname.section('.', 0, 0), Qt::CaseInsensitive) == 0)
      return true;
  }
  ifaddrs* interfaces = nullptr;
  if (::getifaddrs(&interfaces) != 0) return false;
  bool found = false;
  for (ifaddrs* i = interfaces; i && !found; i = i->ifa_next) {
    if (!i->ifa_addr) continue;
    char text[INET6_ADDRSTRLEN] = {};
    if (i->ifa_addr->sa_family == AF_INET)
      ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr, text, sizeof text);
    else if (i->ifa_addr->sa_family == AF_INET6)
      ::inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(i->ifa_addr)->sin6_addr, text, sizeof text);
    else continue;
    found = name.compare(QString::fromLatin1(text), Qt::CaseInsensitive) == 0;
  }
  ::freeifaddrs(interfaces);
  return found;
}

}  // namespace clab::ui
