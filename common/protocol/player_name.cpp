#include "common/protocol/player_name.hpp"

#include <array>
#include <cstdlib>
#include <memory>

#include <utf8proc.h>

#include "common/protocol/text_rules.hpp"

namespace arbiter::protocol {

namespace {

// Characters that show nothing, or that change how the text around them shows: Unicode's
// default-ignorable code points (zero-width space and joiners, bidirectional marks, embeddings,
// overrides and isolates, soft hyphen, Hangul fillers, variation selectors, tags), and the
// categories that are not text one can see and compare: controls (Cc), format characters (Cf),
// surrogates (Cs), private use (Co) and unassigned code points (Cn), line and paragraph
// separators (Zl, Zp).
bool invisible(utf8proc_int32_t code_point) {
    const utf8proc_property_t* property = utf8proc_get_property(code_point);
    if (property->ignorable != 0) {
        return true;
    }
    switch (static_cast<utf8proc_category_t>(property->category)) {
        case UTF8PROC_CATEGORY_CC:
        case UTF8PROC_CATEGORY_CF:
        case UTF8PROC_CATEGORY_CS:
        case UTF8PROC_CATEGORY_CO:
        case UTF8PROC_CATEGORY_CN:
        case UTF8PROC_CATEGORY_ZL:
        case UTF8PROC_CATEGORY_ZP:
            return true;
        default:
            return false;
    }
}

bool is_space(utf8proc_int32_t code_point) {
    return utf8proc_category(code_point) == UTF8PROC_CATEGORY_ZS;
}

struct FreeDeleter {
    void operator()(utf8proc_uint8_t* text) const noexcept { std::free(text); }  // NOLINT
};

}  // namespace

Expected<std::string, std::string> normalize_player_name(std::string_view utf8) {
    utf8proc_uint8_t* composed_raw = nullptr;
    const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(utf8.data());
    const utf8proc_ssize_t length =
        utf8proc_map(bytes, static_cast<utf8proc_ssize_t>(utf8.size()), &composed_raw,
                     static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
    const std::unique_ptr<utf8proc_uint8_t, FreeDeleter> composed(composed_raw);
    if (length < 0) {
        return unexpected(std::string("must be valid UTF-8"));
    }
    std::string name;
    name.reserve(static_cast<std::size_t>(length));
    bool space_pending = false;
    for (utf8proc_ssize_t at = 0; at < length;) {
        utf8proc_int32_t code_point = 0;
        const utf8proc_ssize_t read =
            utf8proc_iterate(composed.get() + at, length - at, &code_point);
        if (read <= 0) {
            return unexpected(std::string("must be valid UTF-8"));
        }
        at += read;
        if (is_space(code_point)) {
            space_pending = !name.empty();  // leading spaces go; inner runs become one
            continue;
        }
        if (invisible(code_point)) {
            return unexpected(std::string(
                "must not contain invisible characters (zero-width, bidirectional controls, "
                "fillers) or control characters"));
        }
        if (space_pending) {
            name.push_back(' ');
            space_pending = false;
        }
        std::array<utf8proc_uint8_t, 4> encoded{};
        const auto size = utf8proc_encode_char(code_point, encoded.data());
        name.append(reinterpret_cast<const char*>(encoded.data()), static_cast<std::size_t>(size));
    }
    if (name.empty()) {
        return unexpected(std::string("must have a visible character"));
    }
    if (text::code_points(name) > text::kNameRule.max_length) {
        return unexpected("must be at most " + std::to_string(text::kNameRule.max_length) +
                          " characters once normalised (NFC)");
    }
    return name;
}

}  // namespace arbiter::protocol
