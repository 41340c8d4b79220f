// sparksim native CSV loader: a good file in both header forms, and one test per kind of bad line,
// each checking the exact `path:line:` message a user would see.
#include "traces/native_csv_trace.hpp"

#include <catch2/catch.hpp>

#include "common/input_error.hpp"
#include "temp_dir.hpp"
#include "traces/trace_loader.hpp"

namespace sparksim {
namespace {

constexpr const char* kHeader = "arrival_s,prompt_tokens,output_tokens,domain\n";

TEST_CASE("native CSV with a domain column", "[traces][csv]") {
  testing::TempDir dir;
  const std::string path = dir.write("good.csv", std::string(kHeader) +
                                                     "0.5,100,20,math\r\n"
                                                     "1.25,2000,1,code\n"
                                                     "2e0,7,9,chat");
  const Trace t = load_trace(path, {});
  CHECK(t.report.format == "csv");
  CHECK(t.report.rows_read == 3);
  REQUIRE(t.requests.size() == 3);
  // Shifted so the first request arrives at 0, and the shift is noted.
  CHECK(t.requests[0] == RequestSpec{0, 100, 20, Domain::kMath});
  CHECK(t.requests[1] == RequestSpec{750'000'000, 2000, 1, Domain::kCode});
  CHECK(t.requests[2] == RequestSpec{1'500'000'000, 7, 9, Domain::kChat});
  REQUIRE(t.report.notes.size() == 1);
  CHECK(t.report.notes[0] ==
        "arrivals shifted by -0.500000000 s so the first request arrives at 0");
}

TEST_CASE("native CSV without a domain column", "[traces][csv]") {
  testing::TempDir dir;
  const std::string path =
      dir.write("three.csv", "arrival_s,prompt_tokens,output_tokens\n0,10,2\n0.001,11,3\n");
  const Trace chat = load_trace(path, {});
  REQUIRE(chat.requests.size() == 2);
  CHECK(chat.requests[1] == RequestSpec{1'000'000, 11, 3, Domain::kChat});
  TraceOptions options;
  options.domain = Domain::kCode;
  const Trace code = load_trace(path, options);
  CHECK(code.requests[0].domain == Domain::kCode);
  CHECK(code.requests[1].domain == Domain::kCode);
}

TEST_CASE("native CSV domain option replaces the column, with a note", "[traces][csv]") {
  testing::TempDir dir;
  const std::string path = dir.write("d.csv", std::string(kHeader) + "0,10,2,math\n");
  TraceOptions options;
  options.domain = Domain::kChat;
  const Trace t = load_trace(path, options);
  CHECK(t.requests[0].domain == Domain::kChat);
  CHECK(t.report.notes.at(0) ==
        "domain column replaced by 'chat' for every request (domain option)");
}

// Writes kHeader, a good line 2 and `bad` as line 3; returns the InputError message.
std::string error_for(const std::string& bad, std::string& path) {
  testing::TempDir dir;
  path = dir.write("bad.csv", std::string(kHeader) + "0,10,2,chat\n" + bad + "\n");
  try {
    load_trace(path, {});
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST_CASE("native CSV bad lines", "[traces][csv]") {
  std::string p;
  SECTION("wrong column count") {
    const std::string message = error_for("1,10,2", p);
    CHECK(message ==
          p + ":3: expected 4 fields (arrival_s,prompt_tokens,output_tokens,domain), found 3");
  }
  SECTION("negative prompt") {
    const std::string message = error_for("1,-3,2,chat", p);
    CHECK(message == p + ":3: prompt_tokens is -3; must be >= 1");
  }
  SECTION("zero prompt") {
    const std::string message = error_for("1,0,2,chat", p);
    CHECK(message == p + ":3: prompt_tokens is 0; must be >= 1");
  }
  SECTION("zero output (native files are not clipped)") {
    const std::string message = error_for("1,5,0,chat", p);
    CHECK(message == p + ":3: output_tokens is 0; must be >= 1");
  }
  SECTION("non-numeric token count") {
    const std::string message = error_for("1,12abc,2,chat", p);
    CHECK(message == p + ":3: prompt_tokens is '12abc'; must be an integer");
  }
  SECTION("fractional token count") {
    const std::string message = error_for("1,12.5,2,chat", p);
    CHECK(message == p + ":3: prompt_tokens is '12.5'; must be an integer");
  }
  SECTION("token count beyond int64") {
    const std::string message = error_for("1,99999999999999999999999,2,chat", p);
    CHECK(message == p + ":3: prompt_tokens is '99999999999999999999999'; must be <= 100000000");
  }
  SECTION("absurd token count") {
    const std::string message = error_for("1,5,100000001,chat", p);
    CHECK(message == p + ":3: output_tokens is 100000001; must be <= 100000000");
  }
  SECTION("non-numeric arrival") {
    const std::string message = error_for("soon,5,2,chat", p);
    CHECK(message == p + ":3: arrival_s is 'soon'; must be a number");
  }
  SECTION("NaN arrival") {
    const std::string message = error_for("nan,5,2,chat", p);
    CHECK(message == p + ":3: arrival_s is nan; must be finite");
  }
  SECTION("infinite arrival") {
    const std::string message = error_for("inf,5,2,chat", p);
    CHECK(message == p + ":3: arrival_s is inf; must be finite");
  }
  SECTION("negative arrival") {
    const std::string message = error_for("-0.5,5,2,chat", p);
    CHECK(message == p + ":3: arrival_s is -0.5; must be >= 0");
  }
  SECTION("arrival beyond the simulator's time limit") {
    const std::string message = error_for("2e9,5,2,chat", p);
    CHECK(message ==
          p + ":3: arrival_s is 2e9; must be <= 1000000000 (the simulator's time limit)");
  }
  SECTION("unknown domain lists the valid ones") {
    const std::string message = error_for("1,5,2,poetry", p);
    CHECK(message == p + ":3: domain is 'poetry'; must be one of math, code, chat");
  }
}

TEST_CASE("native CSV wrong header", "[traces][csv]") {
  testing::TempDir dir;
  const std::string path = dir.write("h.csv", "arrival,prompt,output\n0,1,1\n");
  TraceOptions options;
  options.format = TraceFormat::kNativeCsv;
  CHECK_THROWS_WITH(load_trace(path, options),
                    path +
                        ":1: header 'arrival,prompt,output' is not a sparksim CSV header; "
                        "expected 'arrival_s,prompt_tokens,output_tokens,domain' (domain "
                        "column optional)");
}

TEST_CASE("native CSV with a header and no rows is an error", "[traces][csv]") {
  testing::TempDir dir;
  const std::string path = dir.write("empty_rows.csv", std::string(kHeader) + "\n");
  CHECK_THROWS_WITH(load_trace(path, {}), path + ": no requests after the header");
}

}  // namespace
}  // namespace sparksim
