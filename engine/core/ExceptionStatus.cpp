#include "clab/core/ExceptionStatus.h"

#include "clab/core/TensorAllocation.h"

#include <exception>
#include <new>
#include <stdexcept>

namespace clab {

Status CurrentExceptionStatus(std::string_view where) {
  try {
    throw;
  } catch (const TensorAllocationError& e) {
    return errors::Annotate(e.status(), StrCat(where, ": "));
  } catch (const std::bad_alloc& e) {
    return errors::ResourceExhausted(where, ": out of memory (", e.what(), ")");
  } catch (const std::invalid_argument& e) {
    return errors::InvalidArgument(where, ": invalid value (", e.what(), ")");
  } catch (const std::out_of_range& e) {
    return errors::InvalidArgument(where, ": value out of range (", e.what(), ")");
  } catch (const std::length_error& e) {
    return errors::InvalidArgument(where, ": size too large (", e.what(), ")");
  } catch (const std::exception& e) {
    return errors::Internal(where, ": unexpected failure (", e.what(), ")");
  } catch (...) {
    return errors::Internal(where, ": unexpected failure of an unknown kind");
  }
}

}  // namespace clab
