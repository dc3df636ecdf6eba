@echo off
rem deepwork's launcher for Windows. Drop a project folder on this file (or run "start-deepwork.cmd <folder>" in a
rem console, or run it with no folder inside one) and the pult for that folder opens in the default browser.
rem Each step below says why it is there: a launcher is read more often than it is changed.

rem Our variables stay ours. Delayed expansion is off, so a "!" in a folder name is kept.
setlocal DisableDelayedExpansion
rem Every program below is named by its full path: cmd.exe runs a program in the current folder before PATH, and run
rem inside a project (or after pushd) "node" or "chcp" could be the project's node.cmd or chcp.bat.
rem UTF-8 in this console, so Cyrillic folder names print as themselves.
"%SystemRoot%\System32\chcp.com" 65001 >nul
rem deepwork's own folder: this file's folder, whatever the current folder is.
set "HERE=%~dp0"

rem Which folder? Explorer passes a dropped folder without quotes when its name has no space, so cmd would cut
rem C:\Work\R&D at the "&" and expand a pair of "%" in %1. The command line as Explorer wrote it is in %cmdcmdline%;
rem it is read with delayed expansion, which does not parse what it expands, and cut after this file's name.
setlocal EnableDelayedExpansion
set "LINE=!cmdcmdline!"
set "REST=!LINE:*%~nx0=!"
rem Typed in a console, the line is the console's own and does not name this file: take %1, or the current folder.
if "!REST!"=="!LINE!" goto typed
rem Dropped or double-clicked: the line ends with  <this file>" <folder>"  or  <this file>" "<folder with spaces>"".
rem Drop the quotes, then the spaces in front.
set "REST=!REST:"=!"
:trim
if "!REST:~0,1!"==" " (set "REST=!REST:~1!" & goto trim)
if "!REST!"=="" goto nofolder
rem Hand the folder past endlocal with a for-variable: the one way that keeps "!", "^", "&" and "%" as they are.
for /f "delims=" %%P in ("!REST!") do endlocal & set "PROJECT=%%P"
goto found

:typed
endlocal
if "%~1"=="" (set "PROJECT=%CD%") else (set "PROJECT=%~1")
goto found

:nofolder
endlocal
rem Double-clicked, with no folder: ask for one in Windows' own folder picker (never serve this folder, or System32
rem when run as administrator). PowerShell ships with Windows; its picker needs a single-threaded apartment (-STA).
rem The picker's title comes through the environment, so the command holds no quotes for cmd or for /f to trip on;
rem the path comes back in UTF-8, which this console reads (chcp 65001 above).
set "PROJECT="
set "DEEPWORK_PICK=deepwork: choose the project folder to open in the pult"
for /f "delims=" %%P in ('%SystemRoot%\System32\WindowsPowerShell\v1.0\powershell.exe -NoProfile -STA -Command "Add-Type -AssemblyName System.Windows.Forms; $d = New-Object System.Windows.Forms.FolderBrowserDialog; $d.Description = $env:DEEPWORK_PICK; $d.ShowNewFolderButton = $false; if ($d.ShowDialog() -eq 1) { [Console]::OutputEncoding = [System.Text.Encoding]::UTF8; $d.SelectedPath }" 2^>nul') do set "PROJECT=%%P"
if defined PROJECT goto found
echo deepwork: no folder was chosen. Drop a project folder on start-deepwork.cmd, or start it again and choose one.
pause
exit /b 2

:found
rem A file, or a path that is not there, is not a project folder.
if not exist "%PROJECT%\" (
  echo deepwork: "%PROJECT%" is not a folder. Drop a project folder on start-deepwork.cmd.
  pause
  exit /b 2
)
rem Node.js 20.10 or newer (package.json's engines): older ones lack what deepwork uses, and would fail with a stack
rem trace instead of this line.
rem Its full path comes from PATH alone ($PATH: keeps where.exe out of the current folder); the first one found wins.
set "NODE="
for /f "delims=" %%N in ('%SystemRoot%\System32\where.exe $PATH:node.exe 2^>nul') do if not defined NODE set "NODE=%%N"
if not defined NODE (
  echo deepwork needs Node.js 20.10 or newer: https://nodejs.org
  pause
  exit /b 1
)
"%NODE%" -e "const [a, b] = process.versions.node.split('.').map(Number); process.exit(a > 20 || (a === 20 && b >= 10) ? 0 : 1)" || (
  echo deepwork needs Node.js 20.10 or newer; this one is older:
  "%NODE%" --version
  echo Install the current one from https://nodejs.org
  pause
  exit /b 1
)
if not exist "%HERE%node_modules\" (
  echo deepwork: run "npm install" in "%HERE%" first.
  pause
  exit /b 1
)
rem pushd, not cd /d: a network folder (\\server\share\project) gets a drive letter for the time deepwork runs.
pushd "%PROJECT%" || (
  echo deepwork: cannot open "%PROJECT%".
  pause
  exit /b 1
)
rem The pult. When the configured port is taken by another program it takes the next free one by itself.
echo deepwork: the pult for "%PROJECT%" runs while this window is open. Keep it open; close it, or press Ctrl+C, to stop.
"%NODE%" "%HERE%bin\deepwork.js" ui
rem Keep the window open on a failure, so its message can be read.
if errorlevel 1 pause
popd
