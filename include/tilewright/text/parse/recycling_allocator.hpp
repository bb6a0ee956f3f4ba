#pragma once
// An allocator for the short lists the parser makes and drops on every line (the items of a
// `[0, 0]`, the arguments of a call): it keeps the blocks it is given back, by element
// count, and hands them out again on the same thread. The general allocator then sees a
// handful of requests per thread instead of two per statement. It is stateless, so the
// containers using it move and swap their buffers exactly as with std::allocator; a block
// freed on another thread than the one that made it simply joins that thread's cache.
//
// The cache is bounded (kKeep blocks per element count, kMaxCount elements at most), so a
// parse never holds more than a few tens of kilobytes it does not use; larger lists go
// straight to std::allocator.
#include <array>
#include <cstddef>
#include <memory>

namespace tilewright::text::parser_detail {

template <class T>
class RecyclingAllocator {
 public:
  using value_type = T;
  static constexpr std::size_t kMaxCount = 8;
  static constexpr std::size_t kKeep = 32;

  RecyclingAllocator() noexcept = default;
  template <class U>
  RecyclingAllocator(const RecyclingAllocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor)

  T* allocate(std::size_t n) {
    static_assert(sizeof(T) >= sizeof(void*), "a kept block links through its first bytes");
    if (n - 1 < kMaxCount)
      if (void* kept = cache().take(n)) return static_cast<T*>(kept);
    return std::allocator<T>{}.allocate(n);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n - 1 < kMaxCount && cache().keep(p, n)) return;
    std::allocator<T>{}.deallocate(p, n);
  }

  friend bool operator==(const RecyclingAllocator&, const RecyclingAllocator&) noexcept { return true; }

 private:
  // Free blocks of n elements, linked through their first bytes.
  class Cache {
   public:
    Cache() = default;
    Cache(const Cache&) = delete;
    Cache& operator=(const Cache&) = delete;
    ~Cache() {
      for (std::size_t n = 1; n <= kMaxCount; ++n)
        while (void* p = take(n)) std::allocator<T>{}.deallocate(static_cast<T*>(p), n);
    }
    void* take(std::size_t n) noexcept {
      Link*& head = heads_[n - 1];
      if (!head) return nullptr;
      Link* p = head;
      head = p->next;
      --counts_[n - 1];
      return p;
    }
    bool keep(T* block, std::size_t n) noexcept {
      if (counts_[n - 1] == kKeep) return false;
      auto* link = ::new (static_cast<void*>(block)) Link{heads_[n - 1]};
      heads_[n - 1] = link;
      ++counts_[n - 1];
      return true;
    }

   private:
    struct Link {
      Link* next;
    };
    std::array<Link*, kMaxCount> heads_{};
    std::array<std::size_t, kMaxCount> counts_{};
  };
  static Cache& cache() noexcept {
    thread_local Cache c;
    return c;
  }
};

}  // namespace tilewright::text::parser_detail
