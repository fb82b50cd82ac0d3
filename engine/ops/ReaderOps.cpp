// Readers, as tf.TextLineReader, tf.TFRecordReader, tf.FixedLengthRecordReader and
// tf.WholeFileReader write them: the *ReaderV2 ops make (once per device) the reader their
// resource handle names; ReaderReadV2 gives the reader's next (key, value) record, taking
// the next file name from the string queue it is given when the current file is done
// (tf.train.string_input_producer fills that queue); ReaderReadUpToV2 gives up to
// num_records of them; ReaderNumRecordsProducedV2 and ReaderNumWorkUnitsCompletedV2 count.
// A closed, empty file-name queue ends the reading with OUT_OF_RANGE.
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/OpKernel.h"
#include "ops/ArrayOpsInternal.h"
#include "ops/InputReader.h"
#include "ops/ResourceHandles.h"
#include "ops/TensorQueue.h"

#include <atomic>
#include <memory>

namespace clab {
namespace {

using array_internal::FailInvalidArgument;
using Format = InputReader::Format;
using RecordDone = std::function<void(const Status&, std::string key, std::string value)>;

KernelFactory ReaderFactory(Format format) {
  return [format](OpKernelConstruction& c) -> StatusOr<std::unique_ptr<OpKernel>> {
    std::string container;
    InputReader::Options options;
    options.format = format;
    CLAB_RETURN_IF_ERROR(resource_handles::ResourceName(c, &container, &options.name));
    if (format == Format::kTextLine) {
      CLAB_RETURN_IF_ERROR(c.GetAttr("skip_header_lines", &options.skip_header_lines));
    } else if (format == Format::kTFRecord) {
      std::string compression;
      CLAB_RETURN_IF_ERROR(c.GetAttr("compression_type", &compression));
      if (!compression.empty())
        return errors::Unimplemented("TFRecordReader '", c.name(), "': compression_type '", compression,
                                     "' is not supported; ClusterLab reads uncompressed TFRecord files");
    } else if (format == Format::kFixedLength) {
      std::string encoding;
      CLAB_RETURN_IF_ERROR(c.GetAttr("header_bytes", &options.header_bytes));
      CLAB_RETURN_IF_ERROR(c.GetAttr("record_bytes", &options.record_bytes));
      CLAB_RETURN_IF_ERROR(c.GetAttr("footer_bytes", &options.footer_bytes));
      CLAB_RETURN_IF_ERROR(c.GetAttr("hop_bytes", &options.hop_bytes));
      CLAB_RETURN_IF_ERROR(c.GetAttr("encoding", &encoding));
      if (!encoding.empty())
        return errors::Unimplemented("FixedLengthRecordReader '", c.name(), "': encoding '", encoding,
                                     "' is not supported; ClusterLab reads uncompressed files");
      if (options.record_bytes <= 0 || options.header_bytes < 0 || options.footer_bytes < 0 || options.hop_bytes < 0)
        return errors::InvalidArgument("FixedLengthRecordReader '", c.name(),
                                       "': record_bytes must be > 0 and header_bytes, footer_bytes, hop_bytes >= 0");
    }
    return LambdaKernel(
        [container, options](OpKernelContext* ctx) {
          auto reader = ctx->resource_mgr()->LookupOrCreate<InputReader>(
              container, options.name, [&] { return std::make_shared<InputReader>(options); });
          if (!reader.ok()) return ctx->SetStatus(reader.status());
          ctx->set_output(0, resource_handles::MakeResourceHandle(container, options.name));
        },
        /*expensive=*/false)(c);
  };
}

// Reads the reader's next record, taking file names from the queue as the reader needs
// them. `done` may run on this thread or on the one whose enqueue brings a file name. File
// names already in the queue are taken in this loop, not by recursion, so a long run of empty
// files nests no calls.
void ReadRecord(const Device& device, std::shared_ptr<InputReader> reader, std::shared_ptr<TensorQueue> queue,
                Rendezvous* step, RecordDone done) {
  enum : int { kInCall, kAgain, kReturned };
  auto shared_done = std::make_shared<RecordDone>(std::move(done));
  for (;;) {
    std::string key, value;
    StatusOr<bool> got = false;
    {
      std::lock_guard<std::mutex> lock(reader->mu());
      got = reader->ReadLocked(device, &key, &value);
    }
    if (!got.ok()) return (*shared_done)(errors::Annotate(got.status(), StrCat(reader->DebugString(), ": ")), {}, {});
    if (*got) return (*shared_done)(OkStatus(), std::move(key), std::move(value));
    auto phase = std::make_shared<std::atomic<int>>(kInCall);
    queue->DequeueAsync(
        1, false,
        [&device, reader, queue, step, shared_done, phase](const Status& s, std::vector<TensorQueue::Tuple> work) {
          if (!s.ok()) return (*shared_done)(s, {}, {});
          const Tensor& file = work.front().front();
          if (file.dtype() != DT_STRING || file.NumElements() != 1)
            return (*shared_done)(errors::InvalidArgument(reader->DebugString(),
                                                          " takes file names (string scalars) from ",
                                                          queue->DebugString(), ", got ", DataTypeName(file.dtype()),
                                                          " ", file.shape().DebugString()),
                                  {}, {});
          {
            std::lock_guard<std::mutex> lock(reader->mu());
            reader->AddWorkLocked(file.data<std::string>()[0]);
          }
          int expected = kInCall;
          if (phase->compare_exchange_strong(expected, kAgain)) return;  // the loop reads on
          ReadRecord(device, reader, queue, step, std::move(*shared_done));
        },
        step);
    int expected = kInCall;
    if (phase->compare_exchange_strong(expected, kReturned) || expected != kAgain) return;
  }
}

bool LookupBoth(OpKernelContext* ctx, std::shared_ptr<InputReader>* reader, std::shared_ptr<TensorQueue>* queue) {
  *reader = resource_handles::Lookup<InputReader>(ctx, 0, "reader");
  if (!*reader) return false;
  *queue = resource_handles::Lookup<TensorQueue>(ctx, 1, "queue");
  if (!*queue) return false;
  if ((*queue)->types().empty() || (*queue)->types().front() != DT_STRING) {
    FailInvalidArgument(ctx, (*reader)->DebugString(), " needs a queue of file names (strings), got ",
                        (*queue)->DebugString());
    return false;
  }
  return true;
}

class ReadKernel : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override { ctx->SetStatus(errors::Internal("reads are asynchronous")); }
  bool IsAsync() const override { return true; }
  void ComputeAsync(OpKernelContext* ctx, std::function<void()> done) override {
    std::shared_ptr<InputReader> reader;
    std::shared_ptr<TensorQueue> queue;
    if (!LookupBoth(ctx, &reader, &queue)) return done();
    ReadRecord(*ctx->device(), reader, queue, ctx->step().rendezvous,
               [ctx, done = std::move(done)](const Status& s, std::string key, std::string value) {
                 if (!s.ok()) {
                   ctx->SetStatus(s);
                 } else {
                   ctx->set_output(0, Tensor::Scalar<std::string>(std::move(key)));
                   ctx->set_output(1, Tensor::Scalar<std::string>(std::move(value)));
                 }
                 done();
               });
  }
};

// Up to num_records records: fewer only when the file-name queue is closed and done;
// OUT_OF_RANGE when there are none at all.
class ReadUpToKernel : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override { ctx->SetStatus(errors::Internal("reads are asynchronous")); }
  bool IsAsync() const override { return true; }
  void ComputeAsync(OpKernelContext* ctx, std::function<void()> done) override {
    std::shared_ptr<InputReader> reader;
    std::shared_ptr<TensorQueue> queue;
    if (!LookupBoth(ctx, &reader, &queue)) return done();
    const Tensor& n = ctx->input(2);
    if (n.NumElements() != 1 || n.dtype() != DT_INT64 || n.data<int64_t>()[0] <= 0) {
      FailInvalidArgument(ctx, "num_records must be a positive int64 scalar, got ", n.DebugString());
      return done();
    }
    auto state = std::make_shared<State>();
    state->wanted = n.data<int64_t>()[0];
    state->done = std::move(done);
    Next(ctx, reader, queue, state);
  }

 private:
  struct State {
    int64_t wanted = 0;
    std::vector<std::string> keys, values;
    std::function<void()> done;
  };
  static void Finish(OpKernelContext* ctx, const State& state) {
    const int64_t count = static_cast<int64_t>(state.keys.size());
    Tensor keys(DT_STRING, TensorShape({count})), values(DT_STRING, TensorShape({count}));
    std::copy(state.keys.begin(), state.keys.end(), keys.data<std::string>());
    std::copy(state.values.begin(), state.values.end(), values.data<std::string>());
    ctx->set_output(0, std::move(keys));
    ctx->set_output(1, std::move(values));
  }
  // Takes one record's outcome; true when another read is wanted (otherwise the kernel is done).
  static bool Take(OpKernelContext* ctx, State& state, const Status& s, std::string key, std::string value) {
    if (!s.ok()) {
      if (absl::IsOutOfRange(s) && !state.keys.empty()) Finish(ctx, state);
      else ctx->SetStatus(s);
      state.done();
      return false;
    }
    state.keys.push_back(std::move(key));
    state.values.push_back(std::move(value));
    if (static_cast<int64_t>(state.keys.size()) < state.wanted) return true;
    Finish(ctx, state);
    state.done();
    return false;
  }
  // Reads records until enough are there. Records already in the reader come back on this
  // thread: those are read in this loop, not by recursion (a million lines would otherwise
  // be a million stack frames); a record that comes later, on an enqueuer's thread, starts a
  // new loop there.
  static void Next(OpKernelContext* ctx, std::shared_ptr<InputReader> reader, std::shared_ptr<TensorQueue> queue,
                   std::shared_ptr<State> state) {
    enum : int { kInCall, kAgain, kReturned };
    for (;;) {
      auto phase = std::make_shared<std::atomic<int>>(kInCall);
      ReadRecord(*ctx->device(), reader, queue, ctx->step().rendezvous,
                 [ctx, reader, queue, state, phase](const Status& s, std::string key, std::string value) {
                   if (!Take(ctx, *state, s, std::move(key), std::move(value))) return;
                   int expected = kInCall;
                   if (phase->compare_exchange_strong(expected, kAgain)) return;  // the loop reads on
                   Next(ctx, reader, queue, state);
                 });
      int expected = kInCall;
      if (phase->compare_exchange_strong(expected, kReturned)) return;  // the record comes later
      if (expected != kAgain) return;
    }
  }
};

Status HandleShape(ShapeContext& c) {
  c.set_output(0, PartialShape({2}));
  return OkStatus();
}

template <typename KernelType>
KernelFactory Make() {
  return [](OpKernelConstruction&) -> StatusOr<std::unique_ptr<OpKernel>> {
    return std::unique_ptr<OpKernel>(std::make_unique<KernelType>());
  };
}

}  // namespace

void RegisterReaderOps(OpRegistry& registry) {
  registry.Register("TextLineReaderV2")
      .Output("reader_handle: resource")
      .Attr("skip_header_lines: int = 0")
      .Attr("container: string = ''")
      .Attr("shared_name: string = ''")
      .Stateful()
      .SetShapeFn(HandleShape)
      .Kernel("CPU", ReaderFactory(Format::kTextLine))
      .Summary("A reader of text files, one record per line (key 'file:line'), skipping skip_header_lines.")
      .Group("io");
  registry.Register("TFRecordReaderV2")
      .Output("reader_handle: resource")
      .Attr("container: string = ''")
      .Attr("shared_name: string = ''")
      .Attr("compression_type: string = ''")
      .Stateful()
      .SetShapeFn(HandleShape)
      .Kernel("CPU", ReaderFactory(Format::kTFRecord))
      .Summary("A reader of TFRecord files, one record per entry (key 'file:offset').")
      .Group("io");
  registry.Register("FixedLengthRecordReaderV2")
      .Output("reader_handle: resource")
      .Attr("header_bytes: int = 0")
      .Attr("record_bytes: int")
      .Attr("footer_bytes: int = 0")
      .Attr("hop_bytes: int = 0")
      .Attr("container: string = ''")
      .Attr("shared_name: string = ''")
      .Attr("encoding: string = ''")
      .Stateful()
      .SetShapeFn(HandleShape)
      .Kernel("CPU", ReaderFactory(Format::kFixedLength))
      .Summary("A reader of files of fixed-size records between a header and a footer (key 'file:index').")
      .Group("io");
  registry.Register("WholeFileReaderV2")
      .Output("reader_handle: resource")
      .Attr("container: string = ''")
      .Attr("shared_name: string = ''")
      .Stateful()
      .SetShapeFn(HandleShape)
      .Kernel("CPU", ReaderFactory(Format::kWholeFile))
      .Summary("A reader that gives each file whole (key: the file name).")
      .Group("io");
  registry.Register("ReaderReadV2")
      .Input("reader_handle: resource")
      .Input("queue_handle: resource")
      .Output("key: string")
      .Output("value: string")
      .Stateful()
      .SetShapeFn([](ShapeContext& c) {
        c.set_output(0, PartialShape::Scalar());
        c.set_output(1, PartialShape::Scalar());
        return OkStatus();
      })
      .Kernel("CPU", Make<ReadKernel>())
      .Summary("The reader's next record, taking the next file name from the queue when a file is done.")
      .Group("io");
  registry.Register("ReaderReadUpToV2")
      .Input("reader_handle: resource")
      .Input("queue_handle: resource")
      .Input("num_records: int64")
      .Output("keys: string")
      .Output("values: string")
      .Stateful()
      .SetShapeFn([](ShapeContext& c) {
        c.set_output(0, PartialShape({-1}));
        c.set_output(1, PartialShape({-1}));
        return OkStatus();
      })
      .Kernel("CPU", Make<ReadUpToKernel>())
      .Summary("Up to num_records records of the reader (fewer once the file-name queue is closed and done).")
      .Group("io");
  for (const bool records : {true, false}) {
    registry.Register(records ? "ReaderNumRecordsProducedV2" : "ReaderNumWorkUnitsCompletedV2")
        .Input("reader_handle: resource")
        .Output(records ? "records_produced: int64" : "units_completed: int64")
        .Stateful()
        .SetShapeFn([](ShapeContext& c) {
          c.set_output(0, PartialShape::Scalar());
          return OkStatus();
        })
        .Kernel("CPU", LambdaKernel(
                           [records](OpKernelContext* ctx) {
                             auto reader = resource_handles::Lookup<InputReader>(ctx, 0, "reader");
                             if (!reader) return;
                             ctx->set_output(0, Tensor::Scalar<int64_t>(records ? reader->records_produced()
                                                                                : reader->work_units_completed()));
                           },
                           /*expensive=*/false))
        .Summary(records ? "How many records the reader has given." : "How many files the reader has finished.")
        .Group("io");
  }
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kReaderOpFamily("reader", RegisterReaderOps);

}  // namespace clab
