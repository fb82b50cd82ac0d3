// A Status as text for QVERIFY2 messages, which want a const char* that outlives the call.
#pragma once

#include "clab/core/Status.h"

#include <string>

namespace clab::testing {

inline const char* StatusText(const Status& status) {
  static thread_local std::string text;
  text = status.ToString();
  return text.c_str();
}

}  // namespace clab::testing
