#include <pgas/runtime/environment.hpp>

#include <CLI/CLI.hpp>
#include <cmath>
#include <pgas_programs/command_line.hpp>
#include <utility>

namespace pgas_programs {

namespace {

option_check from_cli(CLI::Validator rule) {
  std::string description = rule.get_description();
  return {[rule = std::move(rule)](const std::string& text) {
            std::string copy = text;
            return rule(copy);
          },
          std::move(description)};
}

// 1048576 rather than 1.04858e+06 in --help.
std::string number_text(double x) {
  if (std::floor(x) == x && std::fabs(x) < 1e15)
    return std::to_string(static_cast<long long>(x));
  return std::to_string(x);
}

}  // namespace

option_check positive_number() {
  return from_cli(CLI::PositiveNumber);
}
option_check non_negative_number() {
  return from_cli(CLI::NonNegativeNumber);
}
option_check number_range(double low, double high) {
  // CLI11's Range would print its bounds as doubles (1.000000); these are mostly counts.
  return {[low, high](const std::string& text) -> std::string {
            double x = 0;
            if (!CLI::detail::lexical_cast(text, x))
              return "Value " + text + " is not a number";
            if (x < low || x > high)
              return "Value " + text + " not in range " + number_text(low) + " to " +
                     number_text(high);
            return "";
          },
          "[" + number_text(low) + " - " + number_text(high) + "]"};
}
option_check one_of(std::vector<std::string> words) {
  return from_cli(CLI::IsMember(std::move(words)));
}
option_check existing_file() {
  return from_cli(CLI::ExistingFile);
}

option* option::capture_default_str() {
  parsed_by_->capture_default_str();
  return this;
}

option* option::check(const option_check& rule) {
  parsed_by_->check(
      CLI::Validator([f = rule.check](std::string& text) { return f(text); }, rule.description));
  return this;
}

option* option::check(std::function<std::string(const std::string&)> rule) {
  return check(option_check{std::move(rule), ""});
}

option* option::needs(option* other) {
  parsed_by_->needs(other->parsed_by_);
  return this;
}

command_line::command_line(const std::string& description, const std::string& program_name)
    : app_{std::make_unique<CLI::App>(description, program_name)} {
}

command_line::~command_line() = default;

option* command_line::keep(CLI::Option* parsed_by) {
  options_.push_back(std::unique_ptr<option>(new option(parsed_by)));
  return options_.back().get();
}

template <option_value T>
option* command_line::add_option(const std::string& name, T& value, const std::string& help) {
  return keep(app_->add_option(name, value, help));
}
template option* command_line::add_option(const std::string&, std::string&, const std::string&);
template option* command_line::add_option(const std::string&, int&, const std::string&);
template option* command_line::add_option(const std::string&, unsigned&, const std::string&);
template option* command_line::add_option(const std::string&, long&, const std::string&);
template option* command_line::add_option(const std::string&, unsigned long&, const std::string&);
template option* command_line::add_option(const std::string&, long long&, const std::string&);
template option* command_line::add_option(const std::string&,
                                          unsigned long long&,
                                          const std::string&);
template option* command_line::add_option(const std::string&, double&, const std::string&);
template option* command_line::add_option(const std::string&,
                                          std::optional<unsigned long>&,
                                          const std::string&);

option* command_line::add_flag(const std::string& name, bool& value, const std::string& help) {
  return keep(app_->add_flag(name, value, help));
}

std::optional<int> parse_command_line(command_line& app, int argc, char** argv) {
  try {
    app.app_->parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    if (pgas::this_image() == 0)
      return app.app_->exit(e);
    return e.get_exit_code();
  }
}

}  // namespace pgas_programs
