#include "server/cluster/envelope.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <optional>

#include "common/core/assert.hpp"
#include "common/core/cluster_id.hpp"
#include "common/core/overloaded.hpp"

namespace arbiter::server::cluster {

namespace {

constexpr std::uint8_t kVersion = 2;
constexpr std::string_view kInboxPrefix = "inbox:";
constexpr std::string_view kBroadcastChannel = "cluster:all";

enum class Kind : std::uint8_t {
    intent = 1,
    delivery = 2,
    not_owner = 3,
    hangup = 4,
    account_changed = 5,
    rating_changed = 6,
    listing_changed = 7,
    listings_of = 8,
};

bool is_token_hash(std::string_view text) noexcept {
    return text.size() == kTokenHashBytes && std::all_of(text.begin(), text.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
}

class Writer {
  public:
    explicit Writer(Kind kind) {
        bytes_.push_back(static_cast<char>(kVersion));
        bytes_.push_back(static_cast<char>(kind));
    }
    void integer(std::uint64_t value) {
        for (int byte = 0; byte < 8; ++byte) {
            bytes_.push_back(static_cast<char>((value >> (8 * byte)) & 0xffU));
        }
    }
    void count(std::size_t value) {
        ARBITER_ASSERT(value <= kMaxMessageBytes);
        for (int byte = 0; byte < 4; ++byte) {
            bytes_.push_back(static_cast<char>((value >> (8 * byte)) & 0xffU));
        }
    }
    void id(std::string_view value) {
        ARBITER_ASSERT(valid_id(value));
        text(value);
    }
    void flag(bool value) { integer(value ? 1 : 0); }
    void real(double value) {
        ARBITER_ASSERT(std::isfinite(value));
        integer(std::bit_cast<std::uint64_t>(value));
    }
    void text(std::string_view value) {
        count(value.size());
        bytes_.append(value);
    }
    /// A text the reader bounds tighter than a message: longer ones are cut to `max` bytes (a
    /// name or a close reason is for show; a cut one still reads back).
    void bounded_text(std::string_view value, std::size_t max) {
        text(value.substr(0, std::min(value.size(), max)));
    }
    std::string take() && { return std::move(bytes_); }

  private:
    std::string bytes_;
};

/// Reads fields off the front of the input; the first failure sticks and later reads give
/// empty values, so that a decoder reads every field and checks once at the end.
class Reader {
  public:
    explicit Reader(std::string_view bytes) : rest_(bytes) {}

    std::uint64_t integer(std::string_view field) {
        const auto raw = take(8, field);
        std::uint64_t value = 0;
        for (std::size_t byte = raw.size(); byte-- > 0;) {
            value = (value << 8) | static_cast<unsigned char>(raw[byte]);
        }
        return value;
    }
    std::size_t count(std::string_view field, std::size_t max) {
        const auto raw = take(4, field);
        std::size_t value = 0;
        for (std::size_t byte = raw.size(); byte-- > 0;) {
            value = (value << 8) | static_cast<unsigned char>(raw[byte]);
        }
        if (value > max) {
            fail(std::string(field) + " is too long");
            return 0;
        }
        return value;
    }
    std::string text(std::string_view field, std::size_t max) {
        const auto size = count(field, max);
        return std::string(take(size, field));
    }
    std::string id(std::string_view field) {
        auto value = text(field, kMaxIdBytes);
        if (!error_ && !valid_id(value)) {
            fail(std::string(field) + " is not a valid id");
        }
        return value;
    }
    /// An integer below `end`.
    std::uint64_t below(std::string_view field, std::uint64_t end) {
        const auto value = integer(field);
        if (value >= end) {
            fail(std::string(field) + " is out of range");
            return 0;
        }
        return value;
    }
    bool flag(std::string_view field) { return below(field, 2) == 1; }
    double real(std::string_view field) {
        const double value = std::bit_cast<double>(integer(field));
        if (!std::isfinite(value)) {
            fail(std::string(field) + " is not a finite number");
            return 0;
        }
        return value;
    }
    void fail(std::string reason) {
        if (!error_) {
            error_ = std::move(reason);
        }
        rest_ = {};
    }
    /// The error, or one for bytes left over after the last field.
    std::optional<std::string> finish() {
        if (!error_ && !rest_.empty()) {
            error_ = "bytes after the last field";
        }
        return error_;
    }

  private:
    std::string_view take(std::size_t size, std::string_view field) {
        if (error_ || rest_.size() < size) {
            fail("truncated in " + std::string(field));
            return {};
        }
        const auto taken = rest_.substr(0, size);
        rest_.remove_prefix(size);
        return taken;
    }

    std::string_view rest_;
    std::optional<std::string> error_;
};

Holder read_holder(Reader& in) {
    Holder holder;
    holder.node = in.id("node");
    holder.incarnation = in.integer("incarnation");
    holder.connection = in.integer("connection");
    return holder;
}

Intent read_intent(Reader& in) {
    Intent intent;
    intent.from = read_holder(in);
    intent.game = in.id("game");
    intent.hops = in.integer("hops");
    intent.player_name = in.text("player_name", kMaxNameBytes);
    intent.user_id = in.integer("user_id");
    intent.username = in.text("username", kMaxNameBytes);
    intent.round_trip_us = in.integer("round_trip_us");
    const auto responsive = in.integer("responsive");
    if (responsive > 1) {
        in.fail("responsive is not 0 or 1");
    }
    intent.responsive = responsive == 1;
    intent.message = in.text("message", kMaxMessageBytes);
    return intent;
}

Delivery read_delivery(Reader& in) {
    Delivery delivery;
    delivery.from_node = in.id("from_node");
    delivery.connection = in.integer("connection");
    delivery.message = in.text("message", kMaxMessageBytes);
    return delivery;
}

NotOwner read_not_owner(Reader& in) {
    NotOwner refused;
    refused.from_node = in.id("from_node");
    refused.connection = in.integer("connection");
    refused.game = in.id("game");
    refused.hops = in.integer("hops");
    refused.message = in.text("message", kMaxMessageBytes);
    return refused;
}

Hangup read_hangup(Reader& in) {
    Hangup hangup;
    hangup.from_node = in.id("from_node");
    hangup.connection = read_holder(in);
    const auto by_holder = in.integer("closed_by_holder");
    if (by_holder > 1) {
        in.fail("closed_by_holder is not 0 or 1");
    }
    hangup.closed_by_holder = by_holder == 1;
    hangup.code = in.integer("code");
    if (hangup.code > 0xffff) {
        in.fail("code is not a close code");
    }
    hangup.reason = in.text("reason", kMaxReasonBytes);
    return hangup;
}

AccountChanged read_account_changed(Reader& in) {
    AccountChanged changed;
    changed.from_node = in.id("from_node");
    const auto change = in.integer("change");
    if (change < static_cast<std::uint64_t>(AccountChange::signed_up) ||
        change > static_cast<std::uint64_t>(AccountChange::account_deleted)) {
        in.fail("change is not an account change");
    } else {
        changed.change = static_cast<AccountChange>(change);
    }
    changed.user_id = in.below("user_id", std::uint64_t{1} << 63);
    changed.username = in.text("username", kMaxNameBytes);
    changed.token_hash = in.text("token_hash", kTokenHashBytes);
    if (!changed.token_hash.empty() && !is_token_hash(changed.token_hash)) {
        in.fail("token_hash is not a SHA-256 in hex");
    }
    return changed;
}

RatingChanged read_rating_changed(Reader& in) {
    RatingChanged changed;
    changed.from_node = in.id("from_node");
    changed.variant = in.below("variant", kVariants);
    changed.speed = in.below("speed", kRatedSpeeds);
    auto& entry = changed.entry;
    entry.user_id = in.below("user_id", std::uint64_t{1} << 63);
    if (entry.user_id == 0) {
        in.fail("user_id is 0");
    }
    entry.rating = in.real("rating");
    entry.deviation = in.real("deviation");
    entry.volatility = in.real("volatility");
    entry.games = in.below("games", std::uint64_t{1} << 63);
    entry.updated_ms = in.below("updated_ms", std::uint64_t{1} << 63);
    return changed;
}

ListingChanged read_listing_changed(Reader& in) {
    ListingChanged changed;
    changed.from_node = in.id("from_node");
    changed.game = in.id("game");
    changed.open = in.flag("open");
    changed.summary = in.text("summary", kMaxMessageBytes);
    if (changed.open == changed.summary.empty()) {
        in.fail(changed.open ? "an open listing without its summary"
                             : "a closed listing with a summary");
    }
    return changed;
}

ListingsOf read_listings_of(Reader& in) {
    ListingsOf listings;
    listings.from_node = in.id("from_node");
    listings.listings = in.text("listings", kMaxMessageBytes);
    return listings;
}

void write_holder(Writer& out, const Holder& holder) {
    out.id(holder.node);
    out.integer(holder.incarnation);
    out.integer(holder.connection);
}

}  // namespace

std::string encode(const Envelope& envelope) {
    return std::visit(
        Overloaded{
            [](const Intent& intent) {
                Writer out(Kind::intent);
                write_holder(out, intent.from);
                out.id(intent.game);
                out.integer(intent.hops);
                out.bounded_text(intent.player_name, kMaxNameBytes);
                out.integer(intent.user_id);
                out.bounded_text(intent.username, kMaxNameBytes);
                out.integer(intent.round_trip_us);
                out.integer(intent.responsive ? 1 : 0);
                out.text(intent.message);
                return std::move(out).take();
            },
            [](const Delivery& delivery) {
                Writer out(Kind::delivery);
                out.id(delivery.from_node);
                out.integer(delivery.connection);
                out.text(delivery.message);
                return std::move(out).take();
            },
            [](const NotOwner& refused) {
                Writer out(Kind::not_owner);
                out.id(refused.from_node);
                out.integer(refused.connection);
                out.id(refused.game);
                out.integer(refused.hops);
                out.text(refused.message);
                return std::move(out).take();
            },
            [](const Hangup& hangup) {
                ARBITER_ASSERT(hangup.code <= 0xffff);
                Writer out(Kind::hangup);
                out.id(hangup.from_node);
                write_holder(out, hangup.connection);
                out.integer(hangup.closed_by_holder ? 1 : 0);
                out.integer(hangup.code);
                out.bounded_text(hangup.reason, kMaxReasonBytes);
                return std::move(out).take();
            },
            [](const AccountChanged& changed) {
                ARBITER_ASSERT(changed.token_hash.empty() || is_token_hash(changed.token_hash));
                ARBITER_ASSERT(changed.user_id < (std::uint64_t{1} << 63));
                Writer out(Kind::account_changed);
                out.id(changed.from_node);
                out.integer(static_cast<std::uint64_t>(changed.change));
                out.integer(changed.user_id);
                out.bounded_text(changed.username, kMaxNameBytes);
                out.text(changed.token_hash);
                return std::move(out).take();
            },
            [](const RatingChanged& changed) {
                ARBITER_ASSERT(changed.variant < kVariants && changed.speed < kRatedSpeeds);
                Writer out(Kind::rating_changed);
                out.id(changed.from_node);
                out.integer(changed.variant);
                out.integer(changed.speed);
                const auto& entry = changed.entry;
                constexpr std::uint64_t kSigned = std::uint64_t{1} << 63;
                ARBITER_ASSERT(entry.user_id != 0 && entry.user_id < kSigned);
                ARBITER_ASSERT(entry.games < kSigned && entry.updated_ms < kSigned);
                out.integer(entry.user_id);
                out.real(entry.rating);
                out.real(entry.deviation);
                out.real(entry.volatility);
                out.integer(entry.games);
                out.integer(entry.updated_ms);
                return std::move(out).take();
            },
            [](const ListingChanged& changed) {
                ARBITER_ASSERT(changed.open != changed.summary.empty());
                Writer out(Kind::listing_changed);
                out.id(changed.from_node);
                out.id(changed.game);
                out.flag(changed.open);
                out.text(changed.summary);
                return std::move(out).take();
            },
            [](const ListingsOf& listings) {
                Writer out(Kind::listings_of);
                out.id(listings.from_node);
                out.text(listings.listings);
                return std::move(out).take();
            },
        },
        envelope);
}

Expected<Envelope, EnvelopeError> decode(std::string_view bytes) {
    if (bytes.size() < 2) {
        return unexpected(EnvelopeError{"shorter than a header"});
    }
    if (static_cast<std::uint8_t>(bytes[0]) != kVersion) {
        return unexpected(EnvelopeError{"unknown version"});
    }
    const auto kind = static_cast<std::uint8_t>(bytes[1]);
    Reader in(bytes.substr(2));
    Envelope envelope;
    switch (kind) {
        case static_cast<std::uint8_t>(Kind::intent):
            envelope = read_intent(in);
            break;
        case static_cast<std::uint8_t>(Kind::delivery):
            envelope = read_delivery(in);
            break;
        case static_cast<std::uint8_t>(Kind::not_owner):
            envelope = read_not_owner(in);
            break;
        case static_cast<std::uint8_t>(Kind::hangup):
            envelope = read_hangup(in);
            break;
        case static_cast<std::uint8_t>(Kind::account_changed):
            envelope = read_account_changed(in);
            break;
        case static_cast<std::uint8_t>(Kind::rating_changed):
            envelope = read_rating_changed(in);
            break;
        case static_cast<std::uint8_t>(Kind::listing_changed):
            envelope = read_listing_changed(in);
            break;
        case static_cast<std::uint8_t>(Kind::listings_of):
            envelope = read_listings_of(in);
            break;
        default:
            return unexpected(EnvelopeError{"unknown kind"});
    }
    if (auto error = in.finish()) {
        return unexpected(EnvelopeError{std::move(*error)});
    }
    return envelope;
}

bool valid_id(std::string_view id) noexcept {
    return is_cluster_id(id);
}

std::string inbox_channel(std::string_view node) {
    return std::string(kInboxPrefix).append(node);
}

std::string_view broadcast_channel() noexcept {
    return kBroadcastChannel;
}

bool is_broadcast(const Envelope& envelope) noexcept {
    return !broadcast_sender(envelope).empty();
}

std::string_view broadcast_sender(const Envelope& envelope) noexcept {
    return std::visit(
        Overloaded{
            [](const OneOf<Intent, Delivery, NotOwner, Hangup> auto&) {
                return std::string_view();
            },
            [](const OneOf<AccountChanged, RatingChanged, ListingChanged, ListingsOf> auto&
                   broadcast) { return std::string_view(broadcast.from_node); },
        },
        envelope);
}

}  // namespace arbiter::server::cluster
