// Renders the installed packages' READMEs (made into input.md by the corpus's prepare step) six times.
const md = require('markdown-it')();
const src = require('fs').readFileSync(require('path').join(__dirname, 'input.md'), 'utf8');
let n = 0;
for (let i = 0; i < 6; i++) n += md.render(src).length;
console.log(n);
