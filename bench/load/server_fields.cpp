// Boost.JSON's push parser instead of a json tree or nlohmann's SAX reader: the client shares the
// two cores with the server it measures, and lexing each `moved` (~40 strings) with nlohmann took
// a fifth of the client's CPU. This is arbiter-load's only Boost.JSON TU (header-only build).
#include "bench/load/server_fields.hpp"

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/src.hpp>

namespace arbiter::bench::load {

namespace {

using boost::json::error_code;
using boost::json::string_view;

// The top-level text fields read, by key.
constexpr std::pair<std::string_view, std::string ServerFields::*> kTextFields[] = {
    {"type", &ServerFields::type},     {"code", &ServerFields::code},
    {"id", &ServerFields::id},         {"game", &ServerFields::game},
    {"seat", &ServerFields::seat},     {"token", &ServerFields::token},
    {"status", &ServerFields::status}, {"turn", &ServerFields::turn},
    {"move", &ServerFields::move}};

class FieldHandler {
  public:
    static constexpr std::size_t max_array_size = static_cast<std::size_t>(-1);
    static constexpr std::size_t max_object_size = static_cast<std::size_t>(-1);
    static constexpr std::size_t max_string_size = static_cast<std::size_t>(-1);
    static constexpr std::size_t max_key_size = static_cast<std::size_t>(-1);

    explicit FieldHandler(ServerFields& fields) : fields_(fields) {}

    bool on_document_begin(error_code&) { return true; }
    bool on_document_end(error_code&) { return true; }
    bool on_object_begin(error_code&) {
        ++depth_;
        return true;
    }
    bool on_object_end(std::size_t, error_code&) {
        --depth_;
        return true;
    }
    bool on_array_begin(error_code&) {
        ++depth_;
        in_legal_ = depth_ == 2 && key_ == "legal";
        return true;
    }
    bool on_array_end(std::size_t, error_code&) {
        --depth_;
        in_legal_ = false;
        return true;
    }
    // Keys and strings come in parts only around escapes: keep the parts of any, and use them
    // when the last part says whether the text is one that is read.
    bool on_key_part(string_view part, std::size_t, error_code&) {
        partial_.append(part.data(), part.size());
        return true;
    }
    bool on_key(string_view part, std::size_t, error_code&) {
        if (depth_ == 1) {
            key_.assign(partial_).append(part.data(), part.size());
            fields_.has_id = fields_.has_id || key_ == "id";
        }
        partial_.clear();
        return true;
    }
    bool on_string_part(string_view part, std::size_t, error_code&) {
        partial_.append(part.data(), part.size());
        return true;
    }
    bool on_string(string_view part, std::size_t, error_code&) {
        std::string* target = nullptr;
        if (depth_ == 2 && in_legal_) {
            if (fields_.legal_count == fields_.legal.size()) {
                fields_.legal.emplace_back();
            }
            target = &fields_.legal[fields_.legal_count++];
        } else if (depth_ == 1) {
            target = top_level_text();
        }
        if (target != nullptr) {
            target->assign(partial_).append(part.data(), part.size());
        }
        partial_.clear();
        return true;
    }
    bool on_number_part(string_view, error_code&) { return true; }
    bool on_int64(std::int64_t value, string_view, error_code&) {
        if (depth_ == 1 && key_ == "ply" && value >= 0) {
            fields_.ply = static_cast<std::uint64_t>(value);
        }
        return true;
    }
    bool on_uint64(std::uint64_t value, string_view, error_code&) {
        if (depth_ == 1 && key_ == "ply") {
            fields_.ply = value;
        }
        return true;
    }
    bool on_double(double, string_view, error_code&) { return true; }
    bool on_bool(bool, error_code&) { return true; }
    bool on_null(error_code&) { return true; }
    bool on_comment_part(string_view, error_code&) { return true; }
    bool on_comment(string_view, error_code&) { return true; }

  private:
    std::string* top_level_text() {
        for (const auto& [name, member] : kTextFields) {
            if (key_ == name) {
                return &(fields_.*member);
            }
        }
        return nullptr;
    }

    ServerFields& fields_;
    std::string key_;
    std::string partial_;  // a string or key delivered in parts (escapes)
    int depth_ = 0;
    bool in_legal_ = false;
};

}  // namespace

bool read_server_fields(std::string_view text, ServerFields& fields) {
    for (const auto& field : kTextFields) {
        (fields.*field.second).clear();
    }
    fields.has_id = false;
    fields.ply = 0;
    fields.legal_count = 0;
    boost::json::basic_parser<FieldHandler> parser(boost::json::parse_options{}, fields);
    error_code error;
    const std::size_t read = parser.write_some(false, text.data(), text.size(), error);
    return !error && parser.done() && read == text.size();
}

}  // namespace arbiter::bench::load
