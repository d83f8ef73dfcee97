// The checks every reader of user text shares (core/json_doc.h, the
// instance reader, the pipeline CSV): whether bytes are UTF-8, what a file
// is when it is not (a UTF-16 or UTF-32 byte-order mark), and how to quote
// the user's text in a one-line message.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace shardlab::utf8 {

// The length of the UTF-8 character at text[at] (1 to 4), or 0 when the
// bytes there are not UTF-8 (RFC 3629: no overlong forms, no surrogates,
// nothing above U+10FFFF, no character cut by the end of `text`). On 0,
// *why (if given) says what was found, for "expected UTF-8 text, found ...".
size_t char_length(std::string_view text, size_t at, std::string* why = nullptr);

// A description of the text's encoding when its first bytes show it is not
// UTF-8: "a UTF-16 (little-endian) byte-order mark", "UTF-16 (big-endian)
// text (every other byte is 0x00)", ...; empty when they do not.
std::string foreign_encoding(std::string_view head);

// A character of the text for "found ...": "'\u201c' (U+201C)", "a
// byte-order mark (U+FEFF)", "the invisible character U+00A0 (not a JSON
// space)", or what char_length() says when the bytes are not UTF-8.
std::string describe_char(std::string_view text, size_t at);

// True when the text starts with the UTF-8 byte-order mark EF BB BF.
bool has_bom(std::string_view text);

// The user's text, quoted for a one-line message: at most `limit` bytes
// (cut at a character boundary, "..." after), quotes and backslashes
// escaped, control characters written as escapes (\n, \u001b) and bytes
// that are not UTF-8 as \xff, so that a name can never break the line, drive
// a terminal or carry invalid UTF-8 into a JSON writer.
std::string quote(std::string_view text, size_t limit = 40);

// The same without the quotes and leaving '"' and '\\' as they are: a clip of
// raw JSON text ("the string \"a\\u0041\"...") for a message.
std::string printable(std::string_view text, size_t limit = 40);

// "0xff": one byte for messages.
std::string hex_byte(unsigned char c);

}  // namespace shardlab::utf8
