#include "clab/graph/TextProto.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <string>

namespace clab {
namespace {

// Keeps the first error: later ones are usually consequences of it.
class FirstTextError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column, const std::string& message) override {
    if (!first_.empty()) return;
    // protobuf counts from 0; editors and compilers count from 1.
    first_ = StrCat(line + 1, ":", column + 1, ": ", message);
  }
  const std::string& first() const { return first_; }

 private:
  std::string first_;
};

}  // namespace

Status ParseTextProto(std::string_view text, std::string_view what, google::protobuf::Message* message,
                      bool allow_unknown_fields) {
  FirstTextError errors_seen;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors_seen);
  parser.AllowUnknownField(allow_unknown_fields);
  parser.SetRecursionLimit(kMaxTextProtoNesting);
  if (parser.ParseFromString(std::string(text), message)) return OkStatus();
  if (errors_seen.first().empty())
    return errors::InvalidArgument(what, ": not a text ", message->GetDescriptor()->name());
  return errors::InvalidArgument(what, ":", errors_seen.first());
}

}  // namespace clab
