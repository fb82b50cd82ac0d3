// The task's memory limit (--max_memory_bytes): host tensors reserve their bytes before the
// system is asked; one that would pass the limit fails with RESOURCE_EXHAUSTED naming the
// shape, what is held and the flag; freeing a tensor gives its bytes back.
#include "clab/core/MemoryBudget.h"
#include "clab/core/Tensor.h"
#include "clab/core/TensorAllocation.h"

#include <QtTest>

#include <optional>

using namespace clab;

namespace {

bool Mentions(const Status& status, const std::string& text) {
  return std::string(status.message()).find(text) != std::string::npos;
}

}  // namespace

class MemoryBudgetTest : public QObject {
  Q_OBJECT

 private slots:
  void cleanup() { MemoryBudget::SetLimit(0); }

  void theDefaultIsBelowThePhysicalMemory() {
    QVERIFY(MemoryBudget::DefaultLimit() > 0);
    QCOMPARE(MemoryBudget::Limit(), MemoryBudget::DefaultLimit());
  }

  void tensorsTogetherCannotPassTheLimit() {
    const uint64_t base = MemoryBudget::InUse();
    MemoryBudget::SetLimit(base + (uint64_t{1} << 20));  // 1 MiB more than is held now
    std::optional<Tensor> first;
    {
      auto made = AllocateTensor(DT_FLOAT, TensorShape({150000}), CpuAllocator());  // 600 kB
      QVERIFY2(made.ok(), made.status().ToString().c_str());
      first = *std::move(made);
    }
    QCOMPARE(MemoryBudget::InUse(), base + 600000);
    QVERIFY(MemoryBudget::Peak() >= base + 600000);

    auto second = AllocateTensor(DT_FLOAT, TensorShape({150000}), CpuAllocator());
    QVERIFY(!second.ok());
    QCOMPARE(second.status().code(), absl::StatusCode::kResourceExhausted);
    QVERIFY2(Mentions(second.status(), "[150000]"), std::string(second.status().message()).c_str());
    QVERIFY2(Mentions(second.status(), "--max_memory_bytes"), std::string(second.status().message()).c_str());
    QVERIFY2(Mentions(second.status(), std::to_string(base + 600000) + " bytes"),
             std::string(second.status().message()).c_str());
    QCOMPARE(MemoryBudget::InUse(), base + 600000);  // the refused one took nothing

    first.reset();
    QCOMPARE(MemoryBudget::InUse(), base);
    auto again = AllocateTensor(DT_FLOAT, TensorShape({150000}), CpuAllocator());
    QVERIFY2(again.ok(), again.status().ToString().c_str());
  }

  void copiesShareTheirBuffer() {
    const uint64_t base = MemoryBudget::InUse();
    Tensor a(DT_INT64, TensorShape({1000}));
    Tensor b = a;
    QCOMPARE(MemoryBudget::InUse(), base + 8000);
  }

  void reservationsDoNotWrap() {
    MemoryBudget::SetLimit(UINT64_MAX);
    const uint64_t rest = UINT64_MAX - MemoryBudget::InUse();
    QVERIFY(MemoryBudget::Reserve(rest));  // up to the limit exactly
    QVERIFY(!MemoryBudget::Reserve(1));    // one more would wrap the count
    QVERIFY(!MemoryBudget::Reserve(UINT64_MAX));
    MemoryBudget::Release(rest);
  }
};

QTEST_GUILESS_MAIN(MemoryBudgetTest)
#include "tst_memory_budget.moc"
