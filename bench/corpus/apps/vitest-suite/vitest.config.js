export default { test: { testTimeout: 60000 } };
