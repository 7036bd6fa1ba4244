const { join } = require('node:path');

module.exports = {
  mode: 'production',
  entry: './src/index.js',
  output: { path: join(__dirname, 'dist'), filename: 'bundle.js' },
  devtool: 'source-map',
};
