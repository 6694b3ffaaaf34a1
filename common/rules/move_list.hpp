#pragma once
/// \file
/// The fixed-capacity move list that every game's generator fills: a caller-owned array, no
/// allocation, no initialisation of the slots it does not use. Each game names its own list
/// `MoveList` (chess::MoveList, xiangqi::MoveList, draughts::MoveList) with the capacity that its
/// rules bound.

#include <cstddef>

#include "common/core/assert.hpp"

namespace arbiter::rules {

/// Up to `Capacity` moves of type `Move` (a small trivially copyable value), in the order they
/// were pushed. Each game works out its capacity next to its alias, so that push never overflows.
template <typename Move, std::size_t Capacity>
class MoveList {
  public:
    /// The most moves the list holds.
    static constexpr std::size_t kCapacity = Capacity;

    /// An empty list; its storage is left uninitialised.
    MoveList() noexcept {}  // NOLINT(modernize-use-equals-default): storage_ must stay untouched

    /// Appends a move; the list must not be full (each game's capacity makes it so).
    void push(const Move& move) noexcept {
        ARBITER_ASSERT(size_ < Capacity);
        storage_.moves[size_++] = move;
    }
    /// Empties the list.
    void clear() noexcept { size_ = 0; }

    /// Number of moves held.
    std::size_t size() const noexcept { return size_; }
    /// Whether no move is held.
    bool empty() const noexcept { return size_ == 0; }
    /// Whether the list holds kCapacity moves.
    bool full() const noexcept { return size_ == Capacity; }
    /// The i-th move, i < size().
    const Move& operator[](std::size_t i) const noexcept { return storage_.moves[i]; }
    /// Iteration over the held moves, in push order.
    const Move* begin() const noexcept { return storage_.moves; }
    const Move* end() const noexcept { return storage_.moves + size_; }

  private:
    // Left uninitialised: a list is built at every node of a perft or a search, and filling the
    // whole array there (8 KB for draughts) would cost more than generating the moves.
    union Storage {
        Storage() noexcept {}  // NOLINT(modernize-use-equals-default): must not initialise
        Move moves[Capacity];
    };
    Storage storage_;
    std::size_t size_ = 0;
};

}  // namespace arbiter::rules
