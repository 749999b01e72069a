package dev.baton.executor;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

/** The {@link BatonHandler} methods of an object, as handlers called on it. */
final class AnnotatedHandlers {
  private AnnotatedHandlers() {}

  static List<TaskHandler> of(Object bean) {
    List<TaskHandler> found = new ArrayList<>();
    for (Method method : bean.getClass().getMethods()) {
      BatonHandler mark = method.getAnnotation(BatonHandler.class);
      if (mark == null) continue;
      String where = bean.getClass().getSimpleName() + "." + method.getName() + "()";
      if (Modifier.isStatic(method.getModifiers()) || method.getParameterCount() != 1 || method.getParameterTypes()[0] != RunContext.class) {
        throw new IllegalArgumentException("@BatonHandler " + where + ": must be an instance method taking one RunContext");
      }
      Handler call = ctx -> {
        try {
          return method.invoke(bean, ctx);
        } catch (InvocationTargetException e) {
          Throwable cause = e.getCause();
          if (cause instanceof Exception ex) throw ex;
          if (cause instanceof Error err) throw err;
          throw e;
        }
      };
      found.add(new TaskHandler(mark.value(), call, TaskHandler.schemaObject(mark.value(), mark.paramsSchema())));
    }
    if (found.isEmpty()) throw new IllegalArgumentException(bean.getClass().getName() + " has no public @BatonHandler method");
    return found;
  }
}
