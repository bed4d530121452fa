package io.amlease.am;

import io.amlease.am.client.SubmitCommand;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.apache.hadoop.util.ToolRunner;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * {@code bin/amlease submit}: the YARN client, through {@link ToolRunner} so that Hadoop's generic
 * options ({@code -conf}, {@code -D}, {@code -fs}) work. The only {@code System.exit} of the client.
 */
public final class AmleaseMain {
  private AmleaseMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 0 || !args[0].equals("submit")) {
      System.err.println("usage: amlease submit [generic options] --name NAME --zk CONNECT ... -- CMD");
      System.exit(SubmitCommand.USAGE);
    }
    String[] rest = Arrays.copyOfRange(args, 1, args.length);
    YarnConfiguration conf = new YarnConfiguration();
    String confDir = System.getProperty("amlease.conf.dir");
    if (confDir != null && Files.isRegularFile(Path.of(confDir, "amlease-site.xml"))) {
      conf.addResource(new org.apache.hadoop.fs.Path(confDir, "amlease-site.xml"));
    }
    System.exit(ToolRunner.run(conf, new SubmitCommand(System.out, System.err), rest));
  }
}
