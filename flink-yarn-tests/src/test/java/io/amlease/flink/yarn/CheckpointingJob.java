package io.amlease.flink.yarn;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * The application {@link FlinkOnYarnIT} deploys: a checkpointing pipeline that runs until the
 * application is killed. Its records, in the directory of its one argument, are what the test
 * asserts on: {@code jobmanager-<container>} (the pid of each JobManager that ran this main) and
 * {@code first-seen} (the first element of each (re)started map task, 0 for a start from nothing).
 */
public final class CheckpointingJob {
  private CheckpointingJob() {}

  public static void main(String[] args) throws Exception {
    Path records = Path.of(args[0]);
    Files.writeString(records.resolve("jobmanager-" + System.getenv("CONTAINER_ID")),
        ProcessHandle.current().pid() + "\n");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    env.enableCheckpointing(500);
    env.fromSequence(0, Long.MAX_VALUE).map(new FirstSeen(records.toString()))
        .sinkTo(new DiscardingSink<>());
    env.execute("amlease-checkpointing");
  }

  /** Appends the first element after each (re)start; slows the source to about 500 a second. */
  static final class FirstSeen extends RichMapFunction<Long, Long> {
    private final String records;
    private transient boolean seen;

    FirstSeen(String records) {
      this.records = records;
    }

    @Override
    public void open(OpenContext context) {
      seen = false;
    }

    @Override
    public Long map(Long value) throws InterruptedException {
      if (!seen) {
        seen = true;
        try {
          Files.writeString(Path.of(records, "first-seen"), value + "\n", StandardOpenOption.CREATE,
              StandardOpenOption.APPEND);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
      Thread.sleep(2);
      return value;
    }
  }
}
