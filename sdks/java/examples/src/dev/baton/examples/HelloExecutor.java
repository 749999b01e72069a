package dev.baton.examples;

import dev.baton.executor.BatonExecutor;
import java.util.Map;

/** The README's smallest executor: one handler, configured by the BATON_* environment. */
public class HelloExecutor {
  public static void main(String[] args) {
    BatonExecutor executor = BatonExecutor.fromEnv()
        .handler("hello", ctx -> Map.of("greeting", "hello " + ctx.params().path("name").asText("world")))
        .run(); // listens, registers with the engines, stops gracefully on SIGTERM
    System.out.println("READY " + executor.url());
  }
}
