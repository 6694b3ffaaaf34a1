#include "server/storage/row_terms.hpp"

namespace arbiter::server::storage::detail {

namespace {

// A seat of the offers column: the seat's place, whatever the variant calls it.
std::string_view seat_text(rules::Side side) noexcept {
    return side == rules::Side::first ? "first" : "second";
}

}  // namespace

std::string_view status_text(protocol::GameStatus status) noexcept {
    return protocol::to_string(status);
}

std::string_view result_text(rules::Outcome result) noexcept {
    return protocol::result_text(result);
}

std::string_view reason_text(protocol::EndReason reason) noexcept {
    return protocol::to_string(reason);
}

std::string offers_text(const std::vector<protocol::OpenOffer>& offers) {
    std::string text;
    for (const protocol::OpenOffer& offer : offers) {
        text += text.empty() ? "" : ",";
        text += protocol::to_string(offer.kind);
        text += ':';
        text += seat_text(offer.by);
    }
    return text;
}

std::vector<protocol::OpenOffer> parse_offers(std::string_view text) {
    std::vector<protocol::OpenOffer> offers;
    while (!text.empty()) {
        const std::size_t comma = text.find(',');
        const std::string_view item = text.substr(0, comma);
        text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
        const std::size_t colon = item.find(':');
        const std::string_view kind = item.substr(0, colon);
        const std::string_view seat =
            colon == std::string_view::npos ? std::string_view() : item.substr(colon + 1);
        for (const auto known : {protocol::OfferKind::draw, protocol::OfferKind::takeback,
                                 protocol::OfferKind::rematch}) {
            for (const rules::Side side : {rules::Side::first, rules::Side::second}) {
                if (kind == protocol::to_string(known) && seat == seat_text(side)) {
                    offers.push_back({known, side});
                }
            }
        }
    }
    return offers;
}

}  // namespace arbiter::server::storage::detail
