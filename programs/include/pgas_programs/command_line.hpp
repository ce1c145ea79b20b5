#pragma once
// Command lines of the examples and benchmarks: CLI11's options, checks and help, parsed the
// same way on every image, behind a class compiled once (src/command_line.cpp). CLI11 is
// header-only, and its header costs several seconds of optimised compile in every program that
// includes it.

#include <concepts>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace pgas_programs {

/// A check of an option's text: "" when the text is good, else what is wrong with it.
/// `description` is what --help shows beside the option ("POSITIVE", "[1 - 40]").
struct option_check {
  std::function<std::string(const std::string&)> check;
  std::string description;
};

/// A number above zero.
[[nodiscard]] option_check positive_number();
/// A number, zero or above.
[[nodiscard]] option_check non_negative_number();
/// A number from `low` to `high`, both included.
[[nodiscard]] option_check number_range(double low, double high);
template <class Number>
[[nodiscard]] option_check range(Number low, Number high) {
  return number_range(static_cast<double>(low), static_cast<double>(high));
}
/// One of the words given.
[[nodiscard]] option_check one_of(std::vector<std::string> words);
/// The name of a file that exists.
[[nodiscard]] option_check existing_file();

/// What an option can fill (src/command_line.cpp compiles add_option for each).
template <class T>
concept option_value = std::same_as<T, std::string> || std::same_as<T, int> ||
    std::same_as<T, unsigned> || std::same_as<T, long> || std::same_as<T, unsigned long> ||
    std::same_as<T, long long> || std::same_as<T, unsigned long long> || std::same_as<T, double> ||
    std::same_as<T, std::optional<unsigned long>>;

/// One option (or flag) of a command_line, refined in a chain:
/// `app.add_option(...)->capture_default_str()->check(positive_number())`.
class option {
 public:
  /// --help shows the value the option starts with.
  option* capture_default_str();
  option* check(const option_check& rule);
  /// `rule` returns "" for good text, else what is wrong with it.
  option* check(std::function<std::string(const std::string&)> rule);
  /// Given only together with `other`.
  option* needs(option* other);

 private:
  friend class command_line;
  explicit option(CLI::Option* parsed_by) : parsed_by_{parsed_by} {}
  CLI::Option* parsed_by_;
};

/// A program's options, its description and --help.
class command_line {
 public:
  explicit command_line(const std::string& description, const std::string& program_name = "");
  ~command_line();
  command_line(const command_line&) = delete;
  command_line& operator=(const command_line&) = delete;

  /// `--name value` into `value`, which keeps what it holds when the option is not given (an
  /// optional stays empty).
  template <option_value T>
  option* add_option(const std::string& name, T& value, const std::string& help = "");
  /// `--name` alone sets `value`.
  option* add_flag(const std::string& name, bool& value, const std::string& help = "");

  /// Parses argv into the options. Returns nothing when the program should run on, or the exit
  /// code when it should stop: 0 after --help, non-zero for an unknown or malformed argument.
  /// Every image parses the same argv, so every image stops alike; only image 0 prints the help
  /// or the error.
  friend std::optional<int> parse_command_line(command_line& app, int argc, char** argv);

 private:
  option* keep(CLI::Option* parsed_by);
  std::unique_ptr<CLI::App> app_;
  std::vector<std::unique_ptr<option>> options_;
};

[[nodiscard]] std::optional<int> parse_command_line(command_line& app, int argc, char** argv);

}  // namespace pgas_programs
