#pragma once

#include <deque>
#include <memory>
#include <utility>

namespace ttm::domain {

/// A std::deque that allocates nothing while it has never held anything.
/// libstdc++'s deque allocates its map and a 512-byte node on construction
/// (and again for the moved-from side of a move), even empty: four of them
/// (a route's backlog, a client's queued frames and their deadlines, a
/// tracker's expired ids) were ~2.4 KB of every idle MCP session, whose
/// queues almost always stay empty (issue 33, memory per idle session).
/// The subset of std::deque its users need; a moved-from one is empty.
/// Only front/pop_front may empty it while iterators are held: none are.
template <class T>
class lazy_deque {
public:
  using iterator = typename std::deque<T>::iterator;

  lazy_deque() = default;
  lazy_deque(lazy_deque&&) noexcept = default;
  lazy_deque& operator=(lazy_deque&&) noexcept = default;
  /// A copy holds what the original holds (a tracker is copied whole).
  lazy_deque(const lazy_deque& other)
    : d_(other.empty() ? nullptr : std::make_unique<std::deque<T>>(*other.d_)) {}
  lazy_deque& operator=(const lazy_deque& other) {
    if (this != &other)
      d_ = other.empty() ? nullptr : std::make_unique<std::deque<T>>(*other.d_);
    return *this;
  }

  bool empty() const noexcept {
    return !d_ || d_->empty();
  }
  std::size_t size() const noexcept {
    return d_ ? d_->size() : 0;
  }
  T& front() {
    return d_->front();
  }
  /// Emptied, it frees its memory again: the backlog holds each request
  /// for a moment, and an idle session must not keep the 576 bytes.
  void pop_front() {
    d_->pop_front();
    if (d_->empty())
      d_.reset();
  }
  void push_back(T value) {
    get().push_back(std::move(value));
  }
  template <class... Args>
  T& emplace_back(Args&&... args) {
    return get().emplace_back(std::forward<Args>(args)...);
  }
  void clear() noexcept {
    d_.reset();
  }
  // Value-initialized iterators compare equal: an empty range.
  iterator begin() {
    return d_ ? d_->begin() : iterator{};
  }
  iterator end() {
    return d_ ? d_->end() : iterator{};
  }

private:
  std::deque<T>& get() {
    if (!d_)
      d_ = std::make_unique<std::deque<T>>();
    return *d_;
  }

  std::unique_ptr<std::deque<T>> d_;
};

} // namespace ttm::domain
