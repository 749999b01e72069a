package dev.baton.executor.beans;

import dev.baton.executor.BatonHandler;
import dev.baton.executor.RunContext;
import java.util.List;

/** Beans of another package than the SDK's, as an application's are (AnnotatedHandlersTest). */
public final class HandlerBeans {
  private HandlerBeans() {}

  /** A package-private class, as a Spring {@code @Component} often is. */
  static class Jobs {
    final List<String> calls;

    Jobs(List<String> calls) {
      this.calls = calls;
    }

    @BatonHandler("hello")
    public Object hello(RunContext ctx) {
      calls.add("hello");
      return "hi";
    }

    @BatonHandler(value = "quiet", paramsSchema = "{\"type\": \"object\"}")
    public void quiet(RunContext ctx) {
      calls.add("quiet");
    }
  }

  /** What a CGLIB proxy is: a subclass overriding the methods, without their annotations. */
  static final class JobsProxy extends Jobs {
    JobsProxy(List<String> calls) {
      super(calls);
    }

    @Override
    public Object hello(RunContext ctx) {
      calls.add("proxy");
      return super.hello(ctx);
    }
  }

  public static Object jobs(List<String> calls) {
    return new Jobs(calls);
  }

  public static Object proxiedJobs(List<String> calls) {
    return new JobsProxy(calls);
  }
}
