/* global module */
'use strict';
/** Stand-in for `vitest` under the bench runner: the hook helpers of the test harness must not be used there. */
const refuse = (name) => () => {
  throw new Error(`vitest.${name} is not available under the bench runner (use Cluster.open / close directly)`);
};
module.exports = {
  beforeAll: refuse('beforeAll'),
  afterAll: refuse('afterAll'),
  beforeEach: refuse('beforeEach'),
  afterEach: refuse('afterEach'),
};
