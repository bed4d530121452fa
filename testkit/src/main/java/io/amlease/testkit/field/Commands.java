package io.amlease.testkit.field;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/** Runs a short system command (nft, useradd, pkill) and fails with its output if it fails. */
final class Commands {
    private static final Duration WITHIN = Duration.ofSeconds(30);

    private record Result(int exit, String out) {}

    private Commands() {}

    static String run(List<String> command) throws IOException {
        return succeeded(command, exec(command)).out();
    }

    /** Like {@link #run} but an exit status in {@code ok} is not a failure (pkill's 1: no process). */
    static int runAllowing(List<String> command, int... ok) throws IOException {
        Result r = exec(command);
        return IntStream.of(ok).anyMatch(c -> c == r.exit()) ? r.exit() : succeeded(command, r).exit();
    }

    private static Result succeeded(List<String> command, Result r) throws IOException {
        if (r.exit() != 0) {
            throw new IOException(String.join(" ", command) + " exited " + r.exit() + ": " + r.out().strip());
        }
        return r;
    }

    private static Result exec(List<String> command) throws IOException {
        // Output to a file, not a pipe: a command that writes more than a pipe holds must not block
        // before it exits, and waitFor keeps its timeout.
        Path out = Files.createTempFile("amlease-command-", ".out");
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(out.toFile()).start();
            try {
                if (!p.waitFor(WITHIN.toSeconds(), TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new IOException(String.join(" ", command) + " did not finish within " + WITHIN);
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
                throw new IOException("interrupted running " + String.join(" ", command), e);
            }
            return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
        }
    }
}
