#pragma once
/// \file
/// Expected<T, E>: a value or an error, the API subset of C++23 std::expected that Arbiter uses
/// (g++ 12 ships <expected> only under -std=c++2b). Expected failures such as an illegal move or a
/// malformed FEN travel as values of this type; exceptions are kept for start-up failures.

#include <type_traits>
#include <utility>
#include <variant>

#include "common/core/assert.hpp"

namespace arbiter {

/// Wraps an error so that it can initialise an Expected unambiguously.
template <typename E>
class Unexpected {
  public:
    explicit Unexpected(E error) : error_(std::move(error)) {}
    /// The wrapped error.
    const E& error() const& noexcept { return error_; }
    E&& error() && noexcept { return std::move(error_); }

  private:
    E error_;
};

/// Deduction helper: `return unexpected(RulesError{"..."});`.
template <typename E>
Unexpected<std::decay_t<E>> unexpected(E&& error) {
    return Unexpected<std::decay_t<E>>(std::forward<E>(error));
}

/// Either a T or an E. Accessing the wrong alternative is a programmer bug (asserted).
template <typename T, typename E>
class [[nodiscard]] Expected {
  public:
    Expected() requires std::is_default_constructible_v<T>
    = default;
    Expected(T value) : storage_(std::in_place_index<0>, std::move(value)) {}  // NOLINT
    Expected(Unexpected<E> error)                                              // NOLINT
        : storage_(std::in_place_index<1>, std::move(error).error()) {}
    template <typename G>
    requires std::is_constructible_v<E, const G&> &&
        (!std::is_same_v<G, E>)Expected(const Unexpected<G>& error)  // NOLINT
        : storage_(std::in_place_index<1>, E(error.error())) {}

    /// True when a value is held.
    bool has_value() const noexcept { return storage_.index() == 0; }
    explicit operator bool() const noexcept { return has_value(); }

    T& value() & {
        ARBITER_ASSERT(has_value());
        return std::get<0>(storage_);
    }
    const T& value() const& {
        ARBITER_ASSERT(has_value());
        return std::get<0>(storage_);
    }
    T&& value() && {
        ARBITER_ASSERT(has_value());
        return std::get<0>(std::move(storage_));
    }
    const E& error() const& {
        ARBITER_ASSERT(!has_value());
        return std::get<1>(storage_);
    }
    E&& error() && {
        ARBITER_ASSERT(!has_value());
        return std::get<1>(std::move(storage_));
    }

    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T&& operator*() && { return std::move(*this).value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

    /// The value, or `fallback` when an error is held.
    template <typename U>
    T value_or(U&& fallback) const& {
        return has_value() ? std::get<0>(storage_) : static_cast<T>(std::forward<U>(fallback));
    }

  private:
    std::variant<T, E> storage_;
};

/// Expected<void, E>: success carries nothing.
template <typename E>
class [[nodiscard]] Expected<void, E> {
  public:
    Expected() = default;
    Expected(Unexpected<E> error) : error_(std::move(error).error()), failed_(true) {}  // NOLINT

    bool has_value() const noexcept { return !failed_; }
    explicit operator bool() const noexcept { return has_value(); }
    const E& error() const& {
        ARBITER_ASSERT(failed_);
        return error_;
    }

  private:
    E error_{};
    bool failed_ = false;
};

}  // namespace arbiter
