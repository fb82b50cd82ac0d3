#include "clab/runtime/Session.h"

#include "clab/runtime/DirectSession.h"

#include <map>
#include <mutex>

namespace clab {
namespace {

struct SessionFactories {
  std::mutex mu;
  std::map<std::string, SessionFactory, std::less<>> by_scheme;
};

SessionFactories& Factories() {
  static SessionFactories* const factories = new SessionFactories;
  return *factories;
}

}  // namespace

Status Session::Run(const FeedList& feeds, const std::vector<std::string>& fetches,
                    const std::vector<std::string>& targets, std::vector<Tensor>* outputs) {
  return Run(tensorflow::RunOptions(), feeds, fetches, targets, outputs, nullptr);
}

void RegisterSessionFactory(const std::string& scheme, SessionFactory factory) {
  SessionFactories& f = Factories();
  std::lock_guard<std::mutex> lock(f.mu);
  f.by_scheme[scheme] = std::move(factory);
}

StatusOr<std::unique_ptr<Session>> NewSession(const SessionOptions& options) {
  const std::string& target = options.target;
  if (target.empty() || target == "local") return NewDirectSession(options);

  const size_t separator = target.find("://");
  const std::string scheme = separator == std::string::npos ? target : target.substr(0, separator);
  SessionFactory factory;
  {
    SessionFactories& f = Factories();
    std::lock_guard<std::mutex> lock(f.mu);
    if (auto it = f.by_scheme.find(scheme); it != f.by_scheme.end()) factory = it->second;
  }
  if (!factory)
    return errors::Unimplemented("No session factory for target '", target, "': nothing handles '", scheme,
                                 "' targets here (use \"\" for an in-process session or grpc://host:port "
                                 "for a ClusterLab server)");
  return factory(options);
}

}  // namespace clab
